"""Template filters for numbers people read: {{ cost|usd }}, {{ tokens|compact_count }}."""

from django import template

from core.numbers import count_label, number_label, usd_label

register = template.Library()
register.filter("usd", usd_label)
register.filter("compact_count", count_label)
register.filter("plain_number", number_label)
