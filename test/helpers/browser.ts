// Chromium for the browser tests, from the lockfile: @sparticuz/chromium carries a headless
// Chromium build inside its npm package, unpacked on first use into the system's temporary
// directory, and playwright-core drives it. Nothing is downloaded at run time and no system browser
// is needed. `npm test` unpacks it once before the test files start (test/setup.ts), so files
// running at the same time never race to unpack it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bundledChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/** Where the bundled Chromium is unpacked (unpacked there first if it is not yet). */
export function chromiumExecutable(): Promise<string> {
  return bundledChromium.executablePath();
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    // Root in a container: no sandbox. The network flags keep Chromium from calling home, which a
    // closed network answers with errors.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // The fonts unpacked beside the browser, so pages render the same on a machine without any.
    env: { ...process.env, FONTCONFIG_PATH: join(tmpdir(), 'fonts') },
  });
}
