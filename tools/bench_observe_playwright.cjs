// The Playwright half of `tools/bench_observe.py --playwright` (not part of the suite).
//
// Reads {"executable", "url", "runs"} as JSON on stdin, opens the URL in Playwright's Chromium (the
// given executable) and times, after one warm-up each, `runs` calls of page.ariaSnapshot() and of
// page.ariaSnapshot({mode: 'ai'}) (the one with refs). Prints the times (ms) and the sizes as JSON.
// Needs playwright-core on NODE_PATH; never downloads a browser.
'use strict';

const { chromium } = require('playwright-core');

async function timed(call) {
  const started = process.hrtime.bigint();
  const value = await call();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { executable, url, runs } = JSON.parse(input);
  const browser = await chromium.launch({
    executablePath: executable,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    // Everything but loopback goes to a closed loopback port: nothing leaves this machine.
    proxy: { server: 'http://127.0.0.1:9', bypass: '127.0.0.1,localhost' },
  });
  const out = { default_ms: [], ai_ms: [], default_chars: 0, ai_chars: 0, ai_refs: 0 };
  try {
    const page = await browser.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    const options = { timeout: 120000 };
    await page.ariaSnapshot(options);
    await page.ariaSnapshot({ ...options, mode: 'ai' });
    for (let i = 0; i < runs; i++) {
      const [ms, text] = await timed(() => page.ariaSnapshot(options));
      out.default_ms.push(ms);
      out.default_chars = text.length;
      const [aiMs, aiText] = await timed(() => page.ariaSnapshot({ ...options, mode: 'ai' }));
      out.ai_ms.push(aiMs);
      out.ai_chars = aiText.length;
      out.ai_refs = (aiText.match(/\[ref=/g) || []).length;
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => { process.stderr.write(String(error.stack || error) + '\n'); process.exit(1); });
