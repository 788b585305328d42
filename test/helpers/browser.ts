// Chromium for the browser tests, from the lockfile: @sparticuz/chromium carries a headless
// Chromium build inside its npm package, unpacked on first use into the system's temporary
// directory, and playwright-core drives it. Nothing is downloaded at run time and no system browser
// is needed. `npm test` unpacks it once before the test files start (test/setup.ts), so files
// running at the same time never race to unpack it.
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bundledChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/** The packed browser in node_modules; its size tells one build of the package from another. */
const packedChromium = join(
  dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))),
  '../../bin/chromium.br',
);
/** Written once an unpack has finished, naming the package build it unpacked. */
const unpackedStamp = join(tmpdir(), 'chromium.unpacked');
/** What the package unpacks into the temporary directory (the browser, its fonts, SwiftShader). */
const unpackedFiles = [
  'chromium',
  'fonts',
  'fonts.conf',
  'libEGL.so',
  'libGLESv2.so',
  'libvk_swiftshader.so',
  'libvulkan.so.1',
  'vk_swiftshader_icd.json',
];

/**
 * Where the bundled Chromium is unpacked (unpacked there first if it is not yet). The package takes
 * any existing /tmp/chromium as unpacked, so a run interrupted mid-unpack would leave a truncated
 * binary that crashes every browser test after it, and an upgraded package would keep running the
 * old browser; so what is there is used only if our stamp says it was fully unpacked from this build.
 */
export async function chromiumExecutable(): Promise<string> {
  const build = `chromium.br ${(await stat(packedChromium)).size} bytes`;
  const unpacked = await readFile(unpackedStamp, 'utf8').catch(() => undefined);
  if (unpacked !== build) {
    await rm(unpackedStamp, { force: true });
    await Promise.all(
      unpackedFiles.map((file) => rm(join(tmpdir(), file), { recursive: true, force: true })),
    );
  }
  const executable = await bundledChromium.executablePath();
  if (unpacked !== build) await writeFile(unpackedStamp, build);
  return executable;
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
