"""The rules of a poll: its question, its options' ids and labels, how many options it has, their counters."""

from __future__ import annotations

from counters.domain.names import option_counter_name, validate_slug, validate_text
from counters.domain.values import CounterDefinition, PollDefinition, PollOption
from counters.exceptions import InvalidInput

MAX_QUESTION_LENGTH = 200
MAX_LABEL_LENGTH = 100
# A poll is created in one transaction of 1 + 2 items per option; DynamoDB allows 100.
MIN_OPTIONS = 2  # a question with one answer is not a poll
MAX_OPTIONS = 20


def validate_question(value: object) -> str:
    """Return a valid poll question or raise InvalidInput."""
    return validate_text(value, what="question", limit=MAX_QUESTION_LENGTH)


def validate_option(option_id: object, label: object) -> PollOption:
    """Return a valid poll option or raise InvalidInput."""
    return PollOption(
        id=validate_slug(option_id, what="option id"),
        label=validate_text(label, what="option label", limit=MAX_LABEL_LENGTH),
    )


def validate_options(options: list[tuple[str, str]]) -> tuple[PollOption, ...]:
    """Return valid poll options from (id, label) pairs: MIN_OPTIONS to MAX_OPTIONS, ids distinct."""
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise InvalidInput(f"A poll has {MIN_OPTIONS} to {MAX_OPTIONS} options.")
    result = tuple(validate_option(option_id, label) for option_id, label in options)
    if len({option.id for option in result}) != len(result):
        raise InvalidInput("Each option of a poll needs its own id.")
    return result


def option_counter_definition(poll: PollDefinition, option: PollOption) -> CounterDefinition:
    """The votes counter of one poll option, titled with the question and the option's label."""
    return CounterDefinition(
        name=option_counter_name(poll.id, option.id),
        kind="votes",
        title=f"{poll.question} — {option.label}",
    )
