// Test runner settings: the suites spawn real processes and servers, so they get generous timeouts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // Tests keep their keys in files, never in the developer's keychain. The bus address points
    // nowhere rather than being unset, because an unset one falls back to the login session's bus.
    // The keychain tests start a private gnome-keyring in a dbus session of their own.
    env: {
      SVC_VAULT: 'file',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/svc-test-bus',
    },
  },
});
