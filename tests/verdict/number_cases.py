"""Labelled texts for typed number fields: the value a page's text means, or a refusal.

Written before the parser: each row is what a careful reader would take the text to say. A
refusal is a string naming why ("identifier", "ambiguous" ...); the parser's message need not use
that word, only refuse.
"""

from __future__ import annotations

NBSP = "\u00a0"
NNBSP = "\u202f"
THIN = "\u2009"

# (text, value) where value is a float, or ("refuse", why).
NUMBER_TEXTS: tuple[tuple[str, float | tuple[str, str]], ...] = (
    # plain and English grouping
    ("42", 42.0),
    ("0", 0.0),
    ("0.5", 0.5),
    (".5", 0.5),
    ("1,234", 1234.0),
    ("1,234.56", 1234.56),
    ("12,345,678.9", 12345678.9),
    ("1234.5678", 1234.5678),
    ("1.234", 1.234),
    # continental Europe
    ("1.234,56", 1234.56),
    ("1.234.567,89", 1234567.89),
    ("1,23", 1.23),
    ("0,5", 0.5),
    ("1234,567", 1234.567),
    ("1 234,56", 1234.56),
    (f"1{NBSP}234,56{NBSP}€", 1234.56),
    (f"1{NNBSP}234{NNBSP}567,8", 1234567.8),
    (f"12{THIN}345", 12345.0),
    ("€1.234.567,89", 1234567.89),
    ("12 345,67 ₽", 12345.67),
    # Switzerland, India
    ("CHF 1'234.50", 1234.5),
    ("1’234’567", 1234567.0),
    ("₹12,34,567.00", 1234567.0),
    # currencies and units
    ("$1,234.50", 1234.5),
    ("$ 1 234.50 USD", 1234.5),
    ("US$12", 12.0),
    ("HK$ 1,000", 1000.0),
    ("USD 2,345.10/oz", 2345.1),
    ("2345.10 USD per troy ounce", 2345.1),
    ("456.78 元/克", 456.78),
    ("人民币 5,678.90 元", 5678.9),
    ("1,234円", 1234.0),
    ("2.5 kg", 2.5),
    ("12 Kg", 12.0),
    ("68.4 bbl", 68.4),
    ("3.2%", 3.2),
    ("12 per cent", 12.0),
    ("£7", 7.0),
    ("12 EUR", 12.0),
    # full-width and other digits
    ("１２３４．５", 1234.5),
    ("￥１，２３４．５元", 1234.5),
    ("１２％", 12.0),
    ("١٢٣", 123.0),
    # signs
    ("-0.75%", -0.75),
    ("−3", -3.0),
    ("－12", -12.0),
    ("+3.2%", 3.2),
    ("-$12.50", -12.5),
    ("$-12.50", -12.5),
    ("(1,234.56)", -1234.56),
    ("1.234,56-", -1234.56),
    # identifiers and other text that only contains a number
    ("AU2606 suspended", ("refuse", "identifier")),
    ("Flight CA981", ("refuse", "identifier")),
    ("SKU 12345-B", ("refuse", "identifier")),
    ("ISO 9001", ("refuse", "identifier")),
    ("CA981", ("refuse", "identifier")),
    ("007", ("refuse", "leading zero")),
    ("02134", ("refuse", "leading zero")),
    ("price: 29.84", ("refuse", "label")),
    ("2024年", ("refuse", "date")),
    ("n/a", ("refuse", "no number")),
    ("USD", ("refuse", "no number")),
    ("", ("refuse", "empty")),
    # magnitudes, approximations, ranges, fractions, exponents
    ("1.2万", ("refuse", "magnitude")),
    ("3M", ("refuse", "magnitude")),
    ("$3m", ("refuse", "magnitude")),
    ("12k", ("refuse", "magnitude")),
    ("2bn", ("refuse", "magnitude")),
    ("~12", ("refuse", "approximation")),
    ("≈12", ("refuse", "approximation")),
    ("1-3", ("refuse", "range")),
    ("12 - 15", ("refuse", "range")),
    ("1/2", ("refuse", "fraction")),
    ("½", ("refuse", "fraction")),
    ("10²", ("refuse", "superscript")),
    ("1e5", ("refuse", "exponent")),
    # malformed grouping
    ("1,23,4", ("refuse", "bad groups")),
    ("12 34", ("refuse", "bad groups")),
    ("1,234 567", ("refuse", "two grouping characters")),
    ("1.234,5,6", ("refuse", "two decimal separators")),
    ("1'234 567", ("refuse", "two grouping characters")),
    ("12.", ("refuse", "separator at the end")),
    ("1,", ("refuse", "separator at the end")),
    ("5 G", ("refuse", "not a unit")),
    ("12 eur", ("refuse", "lower-case code")),
)
