"""The run's values: the inputs and built-ins `{placeholders}` are filled with, and the values the
run finds as later steps reference them (`{steps.<id>.<field>}`, `{vars.<name>}`), each with where
it came from; and a field's text turned into its declared type.

    run_values.py    RunValues: the one way plan params are filled (the template language, runtime/template)
    value_store.py   the values a run found, with their source records
    field_values.py  typed extraction: a field's text as a number, an integer, a boolean

Imports nothing else of the executor.
"""
