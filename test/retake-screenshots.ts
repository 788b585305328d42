// `npm run screenshots`: retakes the README's two screenshots (docs/screenshots/) from what
// `npm run demo` makes, so they show the pages as they are today: the app on a throwaway embedded
// database, filled by the demo's own code, then The Lobby and the first example bot's page in the
// bundled Chromium at 1280 px. Nothing leaves this machine.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { exampleBots } from '../src/demo/examples.js';
import { fillWithExamples } from '../src/demo/service.js';
import { launchChromium } from './helpers/browser.js';
import { createTestDatabase } from './helpers/database.js';

const database = await createTestDatabase();
const config = loadConfig({ ...process.env, NODE_ENV: 'development', DATABASE_URL: '' });
const app = await buildApp({
  config: { ...config, logLevel: 'error', webhooks: { ...config.webhooks, deliver: false } },
  db: database.db,
});
try {
  await app.ready();
  await fillWithExamples(app, database.db);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/`);
    await page.screenshot({ path: 'docs/screenshots/lobby.png' });
    await page.goto(`${base}/bot/${exampleBots[0]!.name}`);
    await page.screenshot({ path: 'docs/screenshots/bot.png', fullPage: true });
    console.log(`docs/screenshots/lobby.png and bot.png retaken (The Lobby, /bot/${exampleBots[0]!.name}).`);
  } finally {
    await browser.close();
  }
} finally {
  await app.close();
  await database.close();
}
