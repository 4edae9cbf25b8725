"""One judge per question, each answered from what it is handed (a page, values, a plan), never
from the run as a whole:

    conditions.py        does this condition hold? (verify, when, until, done_when, an act's expect)
    value_conditions.py  value_equals, value_matches, value_in, expression: conditions on values
    target_check.py      is this page the recipe's target? (data.validate-target)
    page_blockers.py     what is this page: a captcha, a login wall, a 404 ... (blocker_phrases.py: the words)
                         (stand_in_phrases.py: a default page, a parked site, a gate ...; phrase_set.py)
    login_intent.py      how does the plan log in, if it does?

Below the run context: the context and everything above it ask here.
"""
