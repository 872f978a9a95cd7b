#!/usr/bin/env node
/**
 * `npm run lock:complete`: adds lock entries for other platforms' optional native binaries
 * (@swc/core-darwin-arm64 and the like) that the registry reachable here does not serve. npm 11 leaves them
 * out of the lock it writes, and `npm ci` then refuses that lock as "out of sync" (npm/cli#9846). Each entry
 * carries the package's os/cpu, so `npm ci` skips it on every other machine without fetching anything.
 * Run it after any `npm install` that rewrites package-lock.json.
 */
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'wasm32'];

/** Reads os, cpu and libc from a platform package's name, e.g. `core-linux-arm-gnueabihf`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os: [os], cpu: [cpu], ...(libc && os === 'linux' ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    if (packages[target] || packages[`${location}/${target}`]) continue;
    const platform = platformOf(dep);
    const version = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range) ? range : null;
    if (!platform || !version) continue;
    packages[target] = { version, optional: true, ...(entry.dev ? { dev: true } : {}), ...platform };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`package-lock.json: added ${added} platform-only optional entries\n`);
