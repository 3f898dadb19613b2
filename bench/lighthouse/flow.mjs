// INP on the phone profile: a Lighthouse user-flow timespan (devtools throttling: 4x CPU slowdown, the mobile
// network) over a reader's interactions with a page, in Debian's Chromium through puppeteer-core (no browser is
// downloaded). Run by bench/lighthouse_bench.py:
//
//   node flow.mjs URL OUT.json 'STEP;STEP;...' [COOKIE]
//
// A STEP is `click SELECTOR` or `type SELECTOR TEXT`; after each the page is left until the network is quiet (the
// board's script swaps the rows in). OUT.json: the timespan's INP, TBT and CLS, and the interactions it saw.
import fs from 'node:fs';

import {startFlow} from 'lighthouse';
import puppeteer from 'puppeteer-core';

const [url, out, stepsArg, cookie] = process.argv.slice(2);
const steps = stepsArg.split(';').filter(Boolean).map((step) => step.trim().split(' '));

const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  // Lighthouse's mobile screen (Moto G Power: 412x823 at 1.75) before the page loads, so the timespan's emulation
  // does not relayout the page under the first interaction.
  await page.setViewport({width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true});
  if (cookie) await page.setExtraHTTPHeaders({Cookie: cookie});
  await page.goto(url, {waitUntil: 'networkidle0'});
  const flow = await startFlow(page, {flags: {formFactor: 'mobile'}});
  await flow.startTimespan({name: 'interactions'});
  for (const [verb, selector, ...text] of steps) {
    if (verb === 'click') await page.click(selector);
    else if (verb === 'type') await page.type(selector, text.join(' '), {delay: 120});
    else throw new Error(`unknown step ${verb}: use click SELECTOR or type SELECTOR TEXT`);
    await page.waitForNetworkIdle({idleTime: 500, timeout: 30000});
  }
  await flow.endTimespan();
  const {steps: results} = await flow.createFlowResult();
  const audits = results[0].lhr.audits;
  const value = (id) => (audits[id] && audits[id].numericValue !== undefined ? audits[id].numericValue : null);
  fs.writeFileSync(out, JSON.stringify({
    inp: value('interaction-to-next-paint'),
    tbt: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    inp_note: audits['interaction-to-next-paint'] ? audits['interaction-to-next-paint'].displayValue || '' : 'no audit',
    steps: steps.length,
  }));
} finally {
  await browser.close();
}
