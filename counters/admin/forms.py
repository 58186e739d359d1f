"""Admin forms: resets carry the signed version they showed; poll forms validate ids and labels."""

from __future__ import annotations

from django import forms
from django.core import signing
from django.utils.text import slugify

from counters.admin.shown import read_shown
from counters.domain.names import MAX_TEXT_LENGTH, SLUG_PATTERN
from counters.domain.poll_rules import MAX_PICKS
from counters.domain.polls import MAX_LABEL_LENGTH, MAX_OPTIONS, MAX_QUESTION_LENGTH, validate_options
from counters.exceptions import InvalidInput
from counters.services.registration import MAX_DESCRIPTION_LENGTH

MAX_REASON_LENGTH = 200
SHOWN_ERROR = "This form does not carry a version this page showed; reload the counter and try again."


def shown_version(token: str, *, name: str | None = None) -> tuple[str, int]:
    """Read a signed shown version, for `name` if given; ValidationError if missing or forged."""
    try:
        shown_name, version = read_shown(token)
    except (signing.BadSignature, ValueError) as exc:
        raise forms.ValidationError(SHOWN_ERROR, code="forged") from exc
    if name is not None and shown_name != name:
        raise forms.ValidationError(SHOWN_ERROR, code="forged")
    return shown_name, version


class ResetForm(forms.Form):
    """Reset one counter at the version the page showed."""

    shown = forms.CharField(widget=forms.HiddenInput, error_messages={"required": SHOWN_ERROR})
    reason = forms.CharField(max_length=MAX_REASON_LENGTH, help_text="Kept in the audit record.")

    def __init__(self, *args, name: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.name = name

    def clean_shown(self) -> int:
        """The expected version, from a token this site signed for this counter."""
        return shown_version(self.cleaned_data["shown"], name=self.name)[1]


class PollEditForm(ResetForm):
    """A poll's new question (its labels come as `label-<option>` fields) at the version the page showed."""

    reason = None
    question = forms.CharField(max_length=MAX_QUESTION_LENGTH)


class SelectedCountersForm(forms.Form):
    """Counters ticked in the list, each with the version the list showed (e.g. to export them)."""

    selected = forms.MultipleChoiceField(error_messages={"required": "Select some counters first."})

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Choices are whatever tokens were posted; each is checked by its signature instead.
        self.fields["selected"].choices = [(token, token) for token in self.data.getlist("selected")]

    def clean_selected(self) -> list[tuple[str, int]]:
        """(name, expected version) for each selected counter."""
        return [shown_version(token) for token in self.cleaned_data["selected"]]


class BulkResetForm(SelectedCountersForm):
    """Reset several counters, each at the version the list showed."""

    selected = forms.MultipleChoiceField(error_messages={"required": "Select the counters to reset."})
    reason = forms.CharField(max_length=MAX_REASON_LENGTH)


class BadgeCountingForm(forms.Form):
    """Whether each fetch of a counter's badge counts a view."""

    badge_counts = forms.BooleanField(required=False, label="Count a view on each badge fetch")


def option_id_field(**kwargs) -> forms.RegexField:
    return forms.RegexField(
        regex=SLUG_PATTERN,
        max_length=64,
        error_messages={"invalid": "Use lowercase letters, digits, '-' or '_'."},
        **kwargs,
    )


def option_from_line(line: str) -> tuple[str, str]:
    """`id | Label` or just `Label` (its id is then made from it)."""
    option_id, bar, label = line.partition("|")
    if not bar:
        label, option_id = line, slugify(line)
    return option_id.strip(), label.strip()


class PollCreateForm(forms.Form):
    """A new poll: id, question and one option per line."""

    poll_id = option_id_field(label="Poll id", help_text="Lowercase letters, digits, '-' or '_'.")
    question = forms.CharField(max_length=MAX_QUESTION_LENGTH)
    options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        required=False,
        help_text=f"One per line, 1 to {MAX_OPTIONS}: 'Label' or 'id | Label' (a rating has 1 to 5).",
    )
    kind = forms.ChoiceField(
        required=False,
        choices=[("single", "Single choice"), ("multi", "Multiple choice"), ("rating", "Rating 1-5")],
    )
    max_picks = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_PICKS,
        initial=2,
        label="Picks per voter",
        help_text="Multiple choice only.",
    )
    results = forms.ChoiceField(
        required=False,
        label="Results shown",
        choices=[
            ("always", "Always"),
            ("voted", "After the voter voted"),
            ("closed", "After the poll closes"),
            ("revealed", "When the presenter reveals them"),
        ],
    )
    closes_at = forms.DateTimeField(
        required=False, label="Closes at (UTC)", help_text="e.g. 2026-11-25 18:00"
    )
    max_voters = forms.IntegerField(required=False, min_value=1, label="Closes after voters")
    audience = forms.ChoiceField(
        required=False,
        label="Who may vote",
        choices=[("anyone", "Anyone with a browser"), ("users", "Signed-in users only")],
    )
    dashboard = forms.BooleanField(
        required=False,
        label="Show on the public dashboard",
        help_text="Left off, only the poll's audience page and present mode show it (a poll for a talk).",
    )

    def settings(self) -> dict:
        """The poll settings of a valid form, as poll_create takes them."""
        data = self.cleaned_data
        # Left out (as by an older form or a script): the defaults of a poll.
        defaults = {"kind": "single", "max_picks": 1, "results": "always", "audience": "anyone"}
        settings = {name: data.get(name) or default for name, default in defaults.items()}
        return {**settings, "closes_at": data.get("closes_at"), "max_voters": data.get("max_voters")}

    def clean_poll_id(self) -> str:
        """Any slug but `add`, whose address is the page of this form."""
        if self.cleaned_data["poll_id"] == "add":
            raise forms.ValidationError("'add' is taken by this page's address; pick another id.")
        return self.cleaned_data["poll_id"]

    def clean(self) -> dict:
        """(id, label) pairs, ids valid and distinct, unless the poll is a rating (its options are 1-5)."""
        data = super().clean()
        if data.get("kind") == "rating" or "options" not in data:
            return data
        lines = [line.strip() for line in data["options"].splitlines() if line.strip()]
        options = [option_from_line(line) for line in lines]
        try:
            validate_options(options)
        except InvalidInput as exc:
            self.add_error("options", exc.detail)
        data["options"] = options
        return data


class CounterAddForm(forms.Form):
    """A new page counter: its name (the page's slug), title, description and where it starts."""

    name = option_id_field(
        label="Name", help_text='The page\'s slug: /pages/<name>/ or count_view("<name>") counts it.'
    )
    title = forms.CharField(max_length=MAX_TEXT_LENGTH, required=False, help_text="Shown on the dashboard.")
    description = forms.CharField(
        max_length=MAX_DESCRIPTION_LENGTH, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    start = forms.IntegerField(
        min_value=0, initial=0, label="Start at", help_text="Views counted elsewhere before (0 if none)."
    )

    def clean_name(self) -> str:
        """Any slug but `add`, whose address is the page of this form."""
        if self.cleaned_data["name"] == "add":
            raise forms.ValidationError("'add' is taken by this page's address; pick another name.")
        return self.cleaned_data["name"]


class OptionForm(forms.Form):
    """One more option for a poll."""

    label = forms.CharField(max_length=MAX_LABEL_LENGTH)
    option_id = option_id_field(label="Option id", required=False, help_text="Made from the label if empty.")

    def clean(self) -> dict:
        """Derive the id from the label when none is given."""
        data = super().clean()
        if not data.get("option_id") and data.get("label"):
            derived = slugify(data["label"])
            if not SLUG_PATTERN.fullmatch(derived):
                raise forms.ValidationError("Give an option id: none can be made from this label.")
            data["option_id"] = derived
        return data


class PollClosedForm(forms.Form):
    """Close or reopen a poll."""

    closed = forms.TypedChoiceField(choices=[("1", "close"), ("0", "reopen")], coerce=lambda v: v == "1")


class PollListedForm(forms.Form):
    """Put a poll on the public dashboard or take it off."""

    unlisted = forms.TypedChoiceField(choices=[("1", "take off"), ("0", "show")], coerce=lambda v: v == "1")
