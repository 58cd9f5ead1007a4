// Version control hosts and CI: GitHub, GitLab, Bitbucket and Atlassian, and the build services
// that hold a repository's keys. Each format as the provider documents it.

import type { DetectionRule } from '../detect.ts';
import { hasBase62Checksum } from './checksum.ts';
import { UUID_SECRET_WORDS, contextual, minBits, token } from './rule.ts';

/** A GitHub token whose CRC-32 holds is surely one; one whose does not may be an older or mistyped one. */
function githubChecksum(value: string): number {
  return hasBase62Checksum(value.slice(value.indexOf('_') + 1)) ? 0.99 : 0.9;
}

/** GitHub's 2021 format: a three-letter kind, `_`, 30 random base62 characters and a 6-character CRC-32. */
function github(id: string, prefix: string): DetectionRule {
  return token({
    id,
    type: 'GITHUB_TOKEN',
    prefix,
    body: '[A-Za-z0-9]{36}',
    confidence: 0.9,
    check: githubChecksum,
  });
}

/** GitLab's tokens: a kind prefix, then URL-safe characters (20 in the older form, longer since 17.x). */
function gitlab(id: string, prefix: string, body = '[A-Za-z0-9_.-]{20,300}'): DetectionRule {
  return token({ id, type: 'GITLAB_TOKEN', prefix, body });
}

export const VCS_RULES: readonly DetectionRule[] = [
  github('github-personal-access-token', 'ghp_'),
  github('github-oauth-access-token', 'gho_'),
  github('github-user-to-server-token', 'ghu_'),
  github('github-server-to-server-token', 'ghs_'),
  token({
    id: 'github-refresh-token',
    type: 'GITHUB_TOKEN',
    prefix: 'ghr_',
    body: '[A-Za-z0-9]{36,76}',
    confidence: 0.9,
  }),
  token({
    id: 'github-fine-grained-token',
    type: 'GITHUB_TOKEN',
    prefix: 'github_pat_',
    body: '[A-Za-z0-9]{22}_[A-Za-z0-9]{59}',
    confidence: 0.97,
  }),
  contextual({
    id: 'github-classic-oauth-secret',
    type: 'GITHUB_TOKEN',
    names: ['github', 'gh_'],
    secretWord: 'secret|token',
    value: '[a-f0-9]{40}',
  }),

  gitlab('gitlab-personal-access-token', 'glpat-'),
  gitlab('gitlab-deploy-token', 'gldt-'),
  gitlab('gitlab-pipeline-trigger-token', 'glptt-', '[a-f0-9]{40}'),
  gitlab('gitlab-runner-authentication-token', 'glrt-'),
  token({
    id: 'gitlab-runner-registration-token',
    type: 'GITLAB_TOKEN',
    prefix: 'GR1348941',
    body: '[A-Za-z0-9_-]{20}',
  }),
  gitlab('gitlab-ci-job-token', 'glcbt-'),
  gitlab('gitlab-incoming-mail-token', 'glimt-', '[A-Za-z0-9_-]{25}'),
  gitlab('gitlab-feature-flags-client-token', 'glffct-'),
  gitlab('gitlab-feed-token', 'glft-'),
  gitlab('gitlab-scim-token', 'glsoat-'),
  gitlab('gitlab-oauth-application-secret', 'gloas-', '[A-Za-z0-9_.-]{64}'),
  gitlab('gitlab-agent-token', 'glagent-', '[A-Za-z0-9_-]{50}'),

  token({
    id: 'bitbucket-app-password',
    type: 'BITBUCKET_TOKEN',
    prefix: 'ATBB',
    body: '[A-Za-z0-9_=.-]{32}',
    confidence: 0.9,
  }),
  token({
    id: 'atlassian-api-token',
    type: 'ATLASSIAN_TOKEN',
    prefix: 'ATATT3',
    body: '[A-Za-z0-9_=-]{180,200}',
  }),
  contextual({
    id: 'atlassian-legacy-api-token',
    type: 'ATLASSIAN_TOKEN',
    names: ['jira', 'confluence', 'atlassian'],
    secretWord: 'token|key',
    value: '[A-Za-z0-9]{24}',
    check: (value) => /\d/.test(value) && /[A-Z]/.test(value),
  }),
  contextual({
    id: 'azure-devops-personal-access-token',
    type: 'AZURE_DEVOPS_TOKEN',
    names: ['azure_devops', 'azuredevops', 'azure-devops', 'azdo', 'ado_'],
    value: '[a-z2-7]{52}|[A-Za-z0-9]{84}',
  }),
  contextual({
    id: 'gitea-access-token',
    type: 'GITEA_TOKEN',
    names: ['gitea', 'forgejo'],
    value: '[a-f0-9]{40}',
  }),
  token({
    id: 'sourcegraph-access-token',
    type: 'SOURCEGRAPH_TOKEN',
    prefix: 'sgp_',
    body: '(?:[a-f0-9]{16}_)?[a-f0-9]{40}',
  }),

  token({
    id: 'circleci-personal-token',
    type: 'CIRCLECI_TOKEN',
    prefix: 'CCIPAT_',
    body: '[A-Za-z0-9]{22}_[a-f0-9]{40}',
  }),
  token({
    id: 'circleci-project-token',
    type: 'CIRCLECI_TOKEN',
    prefix: 'CCIPRJ_',
    body: '[A-Za-z0-9]{22}_[a-f0-9]{40}',
  }),
  contextual({
    id: 'travis-ci-token',
    type: 'TRAVIS_TOKEN',
    names: ['travis'],
    value: '[A-Za-z0-9_-]{22}',
    check: (v) => /\d/.test(v),
  }),
  token({ id: 'buildkite-agent-token', type: 'BUILDKITE_TOKEN', prefix: 'bkua_', body: '[a-f0-9]{40}' }),
  token({ id: 'sonarqube-user-token', type: 'SONAR_TOKEN', prefix: 'squ_', body: '[a-f0-9]{40}' }),
  token({ id: 'sonarqube-project-token', type: 'SONAR_TOKEN', prefix: 'sqp_', body: '[a-f0-9]{40}' }),
  token({ id: 'sonarqube-analysis-token', type: 'SONAR_TOKEN', prefix: 'sqa_', body: '[a-f0-9]{40}' }),
  contextual({
    id: 'codecov-upload-token',
    type: 'CODECOV_TOKEN',
    names: ['codecov'],
    secretWord: UUID_SECRET_WORDS,
    value: '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}',
  }),
  contextual({
    id: 'snyk-api-token',
    type: 'SNYK_TOKEN',
    names: ['snyk'],
    secretWord: UUID_SECRET_WORDS,
    value: '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}',
  }),
  token({
    id: 'octopus-deploy-api-key',
    type: 'OCTOPUS_KEY',
    prefix: 'API-',
    body: '[A-Z0-9]{26,32}',
    confidence: 0.75,
    keywords: ['api-'],
    check: minBits(3.8),
  }),
  token({
    id: 'harness-access-token',
    type: 'HARNESS_TOKEN',
    prefix: 'pat.',
    body: '[A-Za-z0-9_-]{22}\\.[a-f0-9]{24}\\.[A-Za-z0-9]{20}',
  }),
  token({ id: 'prefect-api-key', type: 'PREFECT_KEY', prefix: 'pnu_', body: '[A-Za-z0-9]{36}' }),
];
