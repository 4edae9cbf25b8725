Feature: A number field takes a number only from text that is a number
  A page's text is read as a number when, less currency, units, sign and grouping, nothing else
  is left. An identifier that contains digits is not a price, and a run must not say it found one.

  @VERDICT-001
  Scenario Outline: An identifier that contains digits is not a number
    When the number field "price" reads "<text>"
    Then the field fails and its error quotes "<text>"

    Examples:
      | text             |
      | AU2606 suspended |
      | Flight CA981     |
      | SKU 12345-B      |
      | ISO 9001         |
      | price: 29.84     |

  @VERDICT-001
  Scenario: A pattern's first group is the number
    When the integer field "contract" with pattern "\bAU(\d{4})\b" reads "Contract AU2606 suspended"
    Then the field's value is 2606

  @VERDICT-001
  Scenario: A pattern's group that is not a number fails the field
    When the number field "code" with pattern "Flight (\w+)" reads "Flight CA981"
    Then the field fails and its error quotes "CA981"

  @VERDICT-002
  Scenario Outline: Numbers are read the way pages in many locales print them
    When the number field "price" reads "<text>"
    Then the field's value is <value>

    Examples:
      | text            | value      |
      | $2,345.60       | 2345.6     |
      | 1.234,56 €      | 1234.56    |
      | 1 234 567,89 €  | 1234567.89 |
      | CHF 1'234.50    | 1234.5     |
      | ₹12,34,567.00   | 1234567    |
      | ￥１２，３４５．６元 | 12345.6    |
      | 456.78 元/克     | 456.78     |
      | 1,234円          | 1234       |
      | 1,234           | 1234       |
      | 1,23            | 1.23       |
      | 1.234           | 1.234      |
      | −0.75%          | -0.75      |
      | (1,234.56)      | -1234.56   |
      | 1.234,56-       | -1234.56   |

  @VERDICT-002
  Scenario Outline: Malformed, scaled or ambiguous numbers are refused rather than guessed
    When the number field "price" reads "<text>"
    Then the field fails and its error quotes "<text>"

    Examples:
      | text      |
      | 1,23,4    |
      | 12 34     |
      | 1,234 567 |
      | 1.234,5,6 |
      | 1.2万      |
      | 3M        |
      | 1-3       |
      | 007       |
      | 12.       |
