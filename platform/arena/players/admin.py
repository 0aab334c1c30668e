from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import Profile, User


class ProfileInline(admin.StackedInline[Profile, User]):
    model = Profile
    can_delete = False


@admin.register(User)
class ArenaUserAdmin(UserAdmin[User]):
    inlines = (ProfileInline,)
