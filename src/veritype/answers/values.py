"""What a value of each kind looks like in a sentence: a duration, a date or a time of day, a
number, a measure, a sum of money, an age, a count. Pure: patterns only."""

from __future__ import annotations

import re

DURATION = re.compile(
    r"\b(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"(?:\s*(?:-|to|or)\s*\d[\d,.]*)?\s*-?\s*(?:seconds?|minutes?|hours?|days?|weeks?|months?|"
    r"years?|decades?|centuries|century)\b",
    re.IGNORECASE,
)
YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b")
MONTH = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b"
)
# Besides a year or a month, what answers "when" in a handbook or a guide: a time of day, a
# day of the week, a season, a day counted in a sequence ("from the eighth day"), or a span
# after which something happens (``DURATION``: "after 180 days").
WHEN = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midnight)\b|"
    r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b|\bweekends?\b|\bweekdays?\b|"
    r"\b(?:spring|summer|autumn|winter)\b|"
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d+(?:st|nd|rd|th))"
    r"\s+(?:working\s+)?(?:day|week|month|year)\b",
    re.IGNORECASE)
NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b",
                     re.IGNORECASE)
# A number with a unit of measure or money after it: the answer to "how long" or "how much",
# never to "how many cars".
MEASURE = re.compile(
    r"\d[\d,.]*\s*(?:(?:million|billion|thousand)\s+)?(?:%|per\s*cent|percent|"
    r"(?:kilo|centi|milli)?(?:met(?:re|er)s?|grams?)|km|kg|cm|mm|m|g|tonnes?|tons?|miles?|"
    r"feet|foot|ft|inch(?:es)?|litres?|liters?|square|cubic|degrees?|mph|km/h|watts?|W|Wh|"
    r"kWh|euros?|dollars?|pounds?|yen)\b|[$€£¥]\s*\d", re.IGNORECASE)
# A sum of money: a currency's sign or code before a figure, or its name after one.
MONEY = re.compile(
    r"[$€£¥₹]\s*\d|\b(?:EUR|USD|GBP|NOK|SEK|DKK|CHF|JPY)\s*\d|\d[\d,.]*\s*(?:(?:million|billion|"
    r"thousand)\s+)?(?:euros?|cents?|dollars?|pounds?|pence|p|yen|kroner|krone|kronor|francs?|"
    r"rupees?|yuan|EUR|USD|GBP|NOK|SEK|DKK|CHF)\b", re.IGNORECASE)
# The value that states an attribute a comparative word implies: an age ("must be 18",
# "aged 6", "12 years old"), a sum for a cost.
AGE = re.compile(r"\b(?:be|aged?|over|under)\s+\d{1,3}\b|\b\d{1,3}\s+years?\s+old\b",
                  re.IGNORECASE)
IMPLIED_VALUES = {"age": AGE, "born": AGE, "cost": MONEY}
COUNT = re.compile(r"\d[\d,.]*\d|\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                    r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|"
                    r"dozen)\b", re.IGNORECASE)
YEAR_NUMBER = re.compile(r"1\d{3}|20\d{2}")
