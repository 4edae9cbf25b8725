"""What a run records: the run directory's files (run_files.py; the layout is runtime/run_layout.py),
each executed state's record (step_record.py), the run's spans (spans.py), the report written at
its end (run_report.py), and the recipe's storage state loaded before the run and saved after it
(storage_state.py).
"""
