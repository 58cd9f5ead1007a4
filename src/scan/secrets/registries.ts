// Package registries: tokens that publish packages, and registry passwords in the files package
// managers read (.npmrc, settings). Each format as the registry documents it.

import type { DetectionRule } from '../detect.ts';
import { hasBase62Checksum } from './checksum.ts';
import { contextual, secretRule, token } from './rule.ts';

export const REGISTRY_RULES: readonly DetectionRule[] = [
  // npm took GitHub's format in 2021: `npm_`, 30 random base62 characters and a CRC-32.
  token({
    id: 'npm-access-token',
    type: 'NPM_TOKEN',
    prefix: 'npm_',
    body: '[A-Za-z0-9]{36}',
    confidence: 0.9,
    check: (value) => (hasBase62Checksum(value.slice(4)) ? 0.99 : 0.9),
  }),
  // .npmrc: `//registry.example/:_authToken=...` (a UUID before 2021), `_auth` (base64 of
  // user:password) and `_password` (base64); npm reads the same from the environment, as
  // `npm_config__auth` in any case (`NPM_CONFIG__AUTH=` in a `.env`).
  secretRule({
    id: 'npmrc-auth-token',
    type: 'NPM_TOKEN',
    keywords: [':_authtoken='],
    pattern: /:_authToken=(?<value>[A-Za-z0-9_.+/=-]{20,200})/g,
    confidence: 0.9,
  }),
  secretRule({
    id: 'npmrc-auth',
    type: 'NPM_PASSWORD',
    keywords: ['_auth', '_password'],
    pattern:
      /(?:^|[\s:]|npm_config_)_(?:auth|password)\s{0,40}=\s{0,40}"?(?<value>[A-Za-z0-9+/]{8,200}={0,2})/gim,
    confidence: 0.85,
  }),
  // PyPI API tokens are macaroons: `pypi-`, then base64 that opens with the issuing host's name.
  token({
    id: 'pypi-upload-token',
    type: 'PYPI_TOKEN',
    prefix: 'pypi-AgEIcHlwaS5vcmc',
    body: '[A-Za-z0-9_-]{50,300}',
    keywords: ['pypi-ageicHlwaS5vcmc'.toLowerCase()],
  }),
  token({
    id: 'test-pypi-upload-token',
    type: 'PYPI_TOKEN',
    prefix: 'pypi-AgENdGVzdC5weXBpLm9yZw',
    body: '[A-Za-z0-9_-]{50,300}',
    confidence: 0.8,
  }),
  token({ id: 'rubygems-api-key', type: 'RUBYGEMS_KEY', prefix: 'rubygems_', body: '[a-f0-9]{48}' }),
  token({ id: 'nuget-api-key', type: 'NUGET_KEY', prefix: 'oy2', body: '[a-z0-9]{43}', confidence: 0.85 }),
  token({
    id: 'docker-hub-personal-access-token',
    type: 'DOCKER_TOKEN',
    prefix: 'dckr_pat_',
    body: '[A-Za-z0-9_-]{27}',
  }),
  token({
    id: 'docker-hub-organization-token',
    type: 'DOCKER_TOKEN',
    prefix: 'dckr_oat_',
    body: '[A-Za-z0-9_-]{27,32}',
  }),
  token({
    id: 'crates-io-api-token',
    type: 'CRATES_TOKEN',
    prefix: 'cio',
    body: '[A-Za-z0-9]{32}',
    confidence: 0.8,
  }),
  token({ id: 'clojars-deploy-token', type: 'CLOJARS_TOKEN', prefix: 'CLOJARS_', body: '[a-f0-9]{60}' }),
  // JFrog: API keys open `AKCp`; reference tokens are base64 of `reftkn:01:`.
  token({ id: 'jfrog-api-key', type: 'JFROG_KEY', prefix: 'AKCp', body: '[A-Za-z0-9]{69}' }),
  token({
    id: 'jfrog-reference-token',
    type: 'JFROG_TOKEN',
    prefix: 'cmVmdGtuOjAxOj',
    body: '[A-Za-z0-9]{50}',
  }),
  secretRule({
    id: 'gradle-plugin-portal-key',
    type: 'GRADLE_KEY',
    // gradle.properties spells it `gradle.publish.key`; CI settings `GRADLE_PUBLISH_KEY`, and a
    // Kubernetes env entry gives its value on the next line (`value: …`).
    keywords: ['gradle.publish.', 'gradle_publish_'],
    pattern:
      /gradle[._]publish[._](?:key|secret)["']?(?:\s{0,40}[=:]|[ \t]{0,40}\r?\n[ \t]{0,40}value:)\s{0,40}["']?(?<value>[A-Za-z0-9]{32})(?![A-Za-z0-9])/gi,
    confidence: 0.9,
  }),
  contextual({
    id: 'hex-pm-api-key',
    type: 'HEX_KEY',
    names: ['hex_api_key', 'hexpm'],
    value: '[a-f0-9]{32}',
  }),
  contextual({
    id: 'packagist-api-token',
    type: 'PACKAGIST_TOKEN',
    names: ['packagist'],
    value: '[A-Za-z0-9]{20,40}',
    check: (v) => /\d/.test(v),
  }),
  contextual({
    id: 'cocoapods-trunk-token',
    type: 'COCOAPODS_TOKEN',
    names: ['cocoapods', 'pod_trunk'],
    value: '[a-f0-9]{32}',
  }),
  token({ id: 'readme-api-key', type: 'README_KEY', prefix: 'rdme_', body: '[a-z0-9]{70}' }),
];
