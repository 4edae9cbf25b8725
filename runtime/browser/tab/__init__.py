"""One page driven over CDP: its documents, its isolated worlds and the page scripts installed
there, snapshots and their refs, locators, and which top-frame navigations the policy refused."""
