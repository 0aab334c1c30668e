"""Input forms of the pages: they parse and check input; services do the writing."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation

from arena.bots.models import Visibility
from arena.players.models import User


class SignUpForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        help_text="Letters, digits and @ . + - _ only. Shown on the ladders.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        required=False,
        help_text="Optional.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        password, again = data.get("password1"), data.get("password2")
        if password and again and password != again:
            self.add_error("password2", "The two passwords differ.")
        elif password:
            # The validators compare the password with the username and email.
            candidate = User(username=data.get("username", ""), email=data.get("email", ""))
            try:
                password_validation.validate_password(password, candidate)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data


class UploadForm(forms.Form):
    name = forms.CharField(
        label="Bot name",
        max_length=40,
        help_text="An existing bot of yours gets a new version; a new name creates a bot.",
        widget=forms.TextInput(attrs={"list": "my-bots", "autocomplete": "off"}),
    )
    visibility = forms.ChoiceField(
        choices=Visibility.choices,
        initial=Visibility.PUBLIC,
        required=False,
        help_text="For a new bot. Private bots play no ladder matches and only you see them.",
    )
    file = forms.FileField(
        label="Code",
        help_text="A single .py file, or a .zip with main.py at its top level.",
        widget=forms.ClearableFileInput(attrs={"accept": ".py,.zip"}),
    )

    def clean_visibility(self) -> str:
        return self.cleaned_data["visibility"] or Visibility.PUBLIC
