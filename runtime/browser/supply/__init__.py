"""Where runs get their sessions: one Chromium shared by a process's runs (`BrowserProvider`), a
pool of attached ones (`BrowserPool`), and the UDP fence an attached browser must pass first."""
