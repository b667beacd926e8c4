module.exports = async function globalTeardown() {
  for (const container of globalThis.__CERTLANE_CONTAINERS__ ?? []) await container.stop();
};
