"""The template language of recipe text, on the ground floor: recipe/ checks templates when a
recipe loads, execute/ fills them as a run acts, and neither reaches into the other for it.

    placeholders.py  `{name}` placeholders and the built-ins (`start_url`, `goal`): names used, filling
    references.py    `{steps.<step_id>.<field>}` and `{vars.<name>}`: the values a run found
    expressions.py   `{= expression}`: parsed, checked and evaluated without `eval`
    functions.py     what an expression may call, and its operators, each pure and bounded
"""
