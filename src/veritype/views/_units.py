"""The currencies and units a value can be written in, by every name they go by.

Each is read to one canonical form ("dollars" and "$" are USD, "metres" and "m" are
metre); nothing is converted.
"""

from __future__ import annotations

import re

_CURRENCIES = {
    "$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
    "dollar": "USD", "us dollar": "USD", "euro": "EUR", "pound sterling": "GBP",
    "yen": "JPY", "yuan": "CNY", "usd": "USD", "eur": "EUR", "gbp": "GBP", "jpy": "JPY",
    "cny": "CNY", "inr": "INR", "chf": "CHF",
}
# A currency written after its amount: "5 million dollars", "799 EUR".
CURRENCY_WORD = re.compile(
    r"\s+(?P<currency>(?i:(?:US\s+)?dollars?|euros?|pounds?\s+sterling|yen|yuan)"
    r"|USD|EUR|GBP|JPY|CNY|INR|CHF)\b"
)

_UNIT_ALIASES: dict[str, tuple[str, ...]] = {
    "metre": ("m", "metre", "metres", "meter", "meters"),
    "kilometre": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "centimetre": ("cm", "centimetre", "centimetres", "centimeter", "centimeters"),
    "millimetre": ("mm", "millimetre", "millimetres", "millimeter", "millimeters"),
    "mile": ("mi", "mile", "miles"),
    "foot": ("ft", "foot", "feet"),
    "inch": ("inch", "inches"),
    "square metre": ("m2", "m²", "sq m", "square metre", "square metres", "square meter",
                     "square meters"),
    "square kilometre": ("km2", "km²", "sq km", "square kilometre", "square kilometres",
                         "square kilometer", "square kilometers"),
    "hectare": ("ha", "hectare", "hectares"),
    "acre": ("acre", "acres"),
    "kilogram": ("kg", "kilogram", "kilograms", "kilo", "kilos"),
    "gram": ("g", "gram", "grams", "gramme", "grammes"),
    "tonne": ("tonne", "tonnes", "metric ton", "metric tons"),
    "ton": ("ton", "tons"),
    "pound": ("lb", "lbs", "pound", "pounds"),
    "litre": ("l", "L", "litre", "litres", "liter", "liters"),
    "millilitre": ("ml", "mL", "millilitre", "millilitres", "milliliter", "milliliters"),
    # No bare "s": "1980s" is a decade far more often than 1,980 seconds.
    "second": ("sec", "secs", "second", "seconds"),
    "minute": ("min", "mins", "minute", "minutes"),
    "hour": ("h", "hr", "hrs", "hour", "hours"),
    "day": ("day", "days"),
    "week": ("week", "weeks"),
    "month": ("month", "months"),
    "year": ("yr", "yrs", "year", "years"),
    "kilometre per hour": ("km/h", "kph", "kilometres per hour", "kilometers per hour"),
    "mile per hour": ("mph", "miles per hour"),
    "degree celsius": ("°C", "degrees celsius", "degree celsius"),
    "degree fahrenheit": ("°F", "degrees fahrenheit", "degree fahrenheit"),
    "watt": ("W", "watt", "watts"),
    "kilowatt": ("kW", "kilowatt", "kilowatts"),
    "megawatt": ("MW", "megawatt", "megawatts"),
    "gigawatt": ("GW", "gigawatt", "gigawatts"),
    "kilowatt hour": ("kWh", "kilowatt hour", "kilowatt hours", "kilowatt-hour",
                      "kilowatt-hours"),
    "volt": ("V", "volt", "volts"),
    "hertz": ("Hz", "hertz"),
    "megahertz": ("MHz", "megahertz"),
    "gigahertz": ("GHz", "gigahertz"),
    "kilobyte": ("KB", "kB", "kilobyte", "kilobytes"),
    "megabyte": ("MB", "megabyte", "megabytes"),
    "gigabyte": ("GB", "gigabyte", "gigabytes"),
    "terabyte": ("TB", "terabyte", "terabytes"),
}
_UNIT_BY_ALIAS = {
    alias.lower(): unit for unit, aliases in _UNIT_ALIASES.items() for alias in aliases
}


def _is_unit_word(alias: str) -> bool:
    # Spelled-out units match in any case ("Metres"); symbols only as written, since
    # "m" (metre) and "M", or "kB" and "kb", are not interchangeable in general.
    return len(alias) >= 3 and all(c.islower() or c in " -" for c in alias)


def _alternation(aliases: list[str]) -> str:
    ordered = sorted(aliases, key=len, reverse=True)  # longest first: "km/h" before "km"
    return "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in ordered)


_ALL_ALIASES = [alias for aliases in _UNIT_ALIASES.values() for alias in aliases]
# A unit written after its amount: "330 m", "21 kilograms".
UNIT = re.compile(
    rf"\s?(?:(?P<word>(?i:{_alternation([a for a in _ALL_ALIASES if _is_unit_word(a)])}))"
    rf"|(?P<symbol>{_alternation([a for a in _ALL_ALIASES if not _is_unit_word(a)])}))"
    r"(?![\w²³])"
)


def currency_code(raw: str) -> str:
    """The ISO code of a currency as written ("dollars", "£", "pounds sterling")."""
    key = " ".join(raw.lower().split())
    if key.endswith("s") and key[:-1] in _CURRENCIES:  # "dollars", "pounds sterling"
        key = key[:-1]
    key = key.replace("pounds ", "pound ")
    return _CURRENCIES[key]


def unit_spelled(word: str) -> str | None:
    """The canonical unit a spelled-out word names ("days": day), or None for another word."""
    return _UNIT_BY_ALIAS.get(word.lower()) if _is_unit_word(word) else None


def unit_named(alias: str) -> str:
    """The canonical unit an alias matched by ``UNIT`` names ("metres" and "m": metre)."""
    return _UNIT_BY_ALIAS[" ".join(alias.lower().split())]
