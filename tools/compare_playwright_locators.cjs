// The Playwright half of tools/compare_playwright_locators.py (not part of the suite).
//
// Reads {"executable": path, "cases": [{"url", "locator"}]} as JSON on stdin and prints, per case,
// how many *visible* elements Playwright's locator matches and each one's role and name (the first
// line of its aria snapshot). Needs playwright-core on NODE_PATH; never downloads a browser.
'use strict';

const { chromium } = require('playwright-core');

function locatorFor(page, spec) {
  const found = baseLocator(page, spec);
  return spec.has_text !== undefined ? found.filter({ hasText: spec.has_text }) : found;
}

function baseLocator(page, spec) {
  const exact = spec.exact !== undefined ? spec.exact : true;
  if (spec.role) return page.getByRole(spec.role, spec.name !== undefined ? { name: spec.name, exact } : {});
  if (spec.css) return page.locator(spec.css);
  if (spec.text) return page.getByText(spec.text, { exact });
  if (spec.label) return page.getByLabel(spec.label, { exact });
  if (spec.placeholder) return page.getByPlaceholder(spec.placeholder, { exact });
  if (spec.alt) return page.getByAltText(spec.alt, { exact });
  if (spec.title) return page.getByTitle(spec.title, { exact });
  if (spec.test_id) return page.getByTestId(spec.test_id);
  throw new Error('unsupported locator ' + JSON.stringify(spec));
}

function roleAndName(snapshot) {
  let first = snapshot.split('\n')[0];
  // A line YAML would misread (a name with ": ") comes single-quoted whole.
  const quoted = /^- '(.*)'(:?)$/.exec(first);
  if (quoted) first = '- ' + quoted[1].replace(/''/g, "'");
  const match = /^- ([\w-]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(first);
  if (!match) return { role: '', name: '', line: first };
  return { role: match[1], name: match[2] ? JSON.parse('"' + match[2] + '"') : '' };
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { executable, cases } = JSON.parse(input);
  const browser = await chromium.launch({
    executablePath: executable,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    // Everything but loopback goes to a closed loopback port: nothing leaves this machine.
    proxy: { server: 'http://127.0.0.1:9', bypass: '127.0.0.1,localhost' },
  });
  const results = [];
  try {
    const page = await browser.newPage();
    let shown = null;
    for (const c of cases) {
      if (c.url !== shown) { await page.goto(c.url); shown = c.url; }
      try {
        const visible = locatorFor(page, c.locator).filter({ visible: true });
        const count = await visible.count();
        const matches = [];
        for (let i = 0; i < Math.min(count, 10); i++) matches.push(roleAndName(await visible.nth(i).ariaSnapshot({ timeout: 5000 })));
        results.push({ count, matches });
      } catch (error) {
        results.push({ error: String(error.message || error).split('\n')[0] });
      }
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((error) => { process.stderr.write(String(error.stack || error) + '\n'); process.exit(1); });
