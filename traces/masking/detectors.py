"""Built-in detectors of sensitive values in text: where each one finds a value, as spans.

Candidates are found by a regular expression and confirmed by the library that knows the
format (python-stdnum's Luhn and IBAN checks, phonenumbers, the standard `ipaddress`), so an
order number is not taken for a card. Secret shapes come from detect-secrets' plugins, plus
the model providers' key prefixes it does not know yet. Each detector first asks a cheap
question of the text (is there an `@`, a digit, a known prefix) before any expression runs.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

Span = tuple[int, int]
# ASCII classes throughout, as RE2 reads the gates (masker.Gate): the two agree on what a
# digit or a word character is.

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}", re.ASCII)
# Written as people write phone numbers: international with a +, or grouped with separators.
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}"
    r"|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[ .-]\d{3}[ .-]\d{4})(?![\w])",
    re.ASCII,
)
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])", re.ASCII)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b", re.ASCII)
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])", re.ASCII)
_IPV6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])", re.ASCII)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----.*?"
    r"(?:-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.S,
)
_PROVIDER_KEYS = (
    re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"),  # Anthropic
    re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),  # OpenAI's current keys
    re.compile(r"AIza[0-9A-Za-z_-]{35}"),  # Google Cloud and Gemini
    re.compile(r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face
)


def _token_shaped(pattern: re.Pattern) -> bool:
    """Plugin expressions that match the secret itself, not a `password = ...` line around it."""
    return "(?:key|pwd" not in pattern.pattern and "aws.{0,20}" not in pattern.pattern


# The libraries load on the first text a detector reads: detect-secrets alone costs a process
# half a second and 20 MB, which no process of a deployment without masking should pay.
@cache
def _secret_patterns() -> tuple[re.Pattern, ...]:
    from detect_secrets.plugins import (
        aws,
        azure_storage_key,
        discord,
        github_token,
        gitlab_token,
        mailchimp,
        openai,
        pypi_token,
        sendgrid,
        slack,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )

    plugins = (
        aws.AWSKeyDetector,
        azure_storage_key.AzureStorageKeyDetector,
        discord.DiscordBotTokenDetector,
        github_token.GitHubTokenDetector,
        gitlab_token.GitLabTokenDetector,
        mailchimp.MailchimpDetector,
        openai.OpenAIDetector,
        pypi_token.PypiTokenDetector,
        sendgrid.SendGridDetector,
        slack.SlackDetector,
        square_oauth.SquareOAuthDetector,
        stripe.StripeDetector,
        telegram_token.TelegramBotTokenDetector,
        twilio.TwilioKeyDetector,
    )
    found = tuple(p for plugin in plugins for p in plugin.denylist if _token_shaped(p))
    return found + _PROVIDER_KEYS


@cache
def _secrets_combined() -> re.Pattern:
    """Every secret shape in one expression: one scan of a text instead of thirty."""
    joined = "|".join(f"(?:{pattern.pattern})" for pattern in _secret_patterns())
    return re.compile(joined, re.ASCII)


@cache
def _jwt_detector():
    from detect_secrets.plugins.jwt import JwtTokenDetector

    return JwtTokenDetector.denylist[0], JwtTokenDetector.is_formally_valid


def _loosened(pattern: re.Pattern) -> str:
    """A Python expression as RE2 takes it, matching at least as much: lookarounds dropped,
    repeats past RE2's limit of 1000 left open."""
    text = re.sub(r"\(\?<?[=!](?:[^()]|\([^()]*\))*\)", "", pattern.pattern)
    return re.sub(r"\{(\d+),\d{4,}\}", r"{\1,}", text)


def _found(pattern: re.Pattern, text: str, keep: Callable[[str], bool] | None = None):
    for match in pattern.finditer(text):
        if keep is None or keep(match.group()):
            yield match.span()


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def _phone_canonical(value: str) -> str:
    return ("+" if value.lstrip().startswith("+") else "") + _digits(value)


def _compact_upper(value: str) -> str:
    return "".join(value.split()).upper()


def _is_phone(value: str) -> bool:
    import phonenumbers

    try:
        number = phonenumbers.parse(value, None if value.startswith("+") else "US")
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(number)


def _is_card(value: str) -> bool:
    from stdnum import luhn

    digits = _digits(value)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn.is_valid(digits)


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def email(text: str) -> Iterator[Span]:
    """Searched from each `@` (64 characters back at most), not from every character."""
    at = text.find("@")
    end = 0
    while at != -1:
        match = _EMAIL.search(text, max(end, at - 64), at + 256)
        if match is not None and match.start() <= at < match.end():
            yield match.span()
            end = match.end()
        at = text.find("@", max(at + 1, end))


def phone(text: str) -> Iterator[Span]:
    yield from _found(_PHONE, text, _is_phone)


def payment_card(text: str) -> Iterator[Span]:
    yield from _found(_CARD, text, _is_card)


def iban_number(text: str) -> Iterator[Span]:
    from stdnum import iban

    yield from _found(_IBAN, text, iban.is_valid)


def ip_address(text: str) -> Iterator[Span]:
    if "." in text:
        yield from _found(_IPV4, text, _is_ip)
    if "::" in text or text.count(":") > 2:
        yield from _found(_IPV6, text, _is_ip)


def secret(text: str) -> Iterator[Span]:
    if "PRIVATE KEY" in text:
        yield from _found(_PRIVATE_KEY, text)
    yield from _found(_secrets_combined(), text)


def jwt(text: str) -> Iterator[Span]:
    if "eyJ" in text:
        pattern, check = _jwt_detector()
        yield from _found(pattern, text, check)


@dataclass(frozen=True)
class Detector:
    name: str  # also the mark's label: <email> or <email:7f3a91c2>
    title: str
    find: Callable[[str], Iterator[Span]]
    # RE2 expressions matching at least wherever `find` would find something (looser: no
    # lookarounds, shorter repeats): one pass over a span's texts tells which detectors to run.
    gates: Callable[[], tuple[str, ...]]
    examples: tuple[str, ...]  # values it must find (shown in the docs and used by the tests)
    needs: str = ""  # a text without this holds nothing the detector finds
    # The form a pseudonym is made from: one address, number or card written two ways (case,
    # spaces, dashes) is one value, so it gets one pseudonym.
    canonical: Callable[[str], str] = str


DETECTORS: dict[str, Detector] = {
    d.name: d
    for d in (
        Detector(
            "email",
            "E-mail address",
            email,
            lambda: (r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",),
            ("maria.gonzalez@example.com", "ops+refunds@shop.example.co.uk"),
            needs="@",
            canonical=str.casefold,
        ),
        Detector(
            "phone",
            "Phone number",
            phone,
            lambda: (r"\+\d|\(\d{3}\)|\d{3}[ .-]\d{3}[ .-]\d{4}",),
            ("+44 20 7946 0958", "(415) 555-0132"),
            canonical=_phone_canonical,
        ),
        Detector(
            "card",
            "Payment card (Luhn-checked)",
            payment_card,
            lambda: (r"\d(?:[ -]?\d){12}",),
            ("4111 1111 1111 1111", "5500-0000-0000-0004"),
            canonical=_digits,
        ),
        Detector(
            "iban",
            "IBAN (checksum)",
            iban_number,
            lambda: (r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11}",),
            ("DE89 3704 0044 0532 0130 00",),
            canonical=_compact_upper,
        ),
        Detector(
            "ip",
            "IP address",
            ip_address,
            lambda: (r"(?:\d{1,3}\.){3}\d{1,3}", r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2}"),
            ("203.0.113.42", "2001:db8::8a2e:370:7334"),
        ),
        Detector(
            "secret",
            "API keys and secrets",
            secret,
            lambda: ("PRIVATE KEY", *map(_loosened, _secret_patterns())),
            (
                "AKIAIOSFODNN7EXAMPLE",
                "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
                "sk-ant-api03-" + "Xq7vR2mL9pT4wZ8kB1nC6dF3gH5jK0sA",
                "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
                "xoxb-" + "123456789012-abcdefghijkl",
            ),
        ),
        Detector(
            "jwt",
            "JSON Web Token",
            jwt,
            lambda: (r"eyJ[A-Za-z0-9_=-]+\.",),
            (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
                "eyJzdWIiOiJjdXN0LTQ0MTkiLCJyb2xlIjoiYWdlbnQifQ."
                "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg",
            ),
            needs="eyJ",
        ),
    )
}
