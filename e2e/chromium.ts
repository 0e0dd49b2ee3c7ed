/**
 * How every browser run of the app launches Chromium: the Playwright tests, the README's
 * screenshots and bench/web-frames.ts. Debian's Chromium by default (CHROMIUM_PATH overrides),
 * without the sandbox a container refuses and without background traffic that would disturb timings.
 */
const env = process.env;

export const CHROMIUM_LAUNCH = {
  executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};
