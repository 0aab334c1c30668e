from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import Profile, Team, TeamMembership, User


class ProfileInline(admin.StackedInline[Profile, User]):
    model = Profile
    can_delete = False


@admin.register(User)
class ArenaUserAdmin(UserAdmin[User]):
    inlines = (ProfileInline,)
    # The address a verification link proved, shown: set only by following a link.
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("E-mail verification", {"fields": ("verified_email", "email_verified_at")}),
    )
    readonly_fields = ("verified_email", "email_verified_at")


class TeamMembershipInline(admin.TabularInline[TeamMembership, Team]):
    model = TeamMembership
    raw_id_fields = ("user",)
    extra = 0


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    """Teams and their members; the invitation token is the team owners' to regenerate
    (a new value here works the same: old links stop working)."""

    list_display = ("name", "created_at", "invite_created_at")
    search_fields = ("name", "memberships__user__username")
    readonly_fields = ("created_at",)
    inlines = (TeamMembershipInline,)
