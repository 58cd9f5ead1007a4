// What the personal-data rules read around a value: whether its file holds tests, and the words on
// its line before it. Pure.

/**
 * A file that holds tests or their data (`test/`, `spec/`, `__tests__/`, `fixtures/`, `testdata/`,
 * `mocks/` folders, and `*.test.*`, `*.spec.*`, `*_test.*` names): documented example values there are
 * expected and are not findings.
 */
export function isTestFile(file: string): boolean {
  return /(?:^|[/\\])(?:tests?|specs?|__tests__|__mocks__|mocks?|fixtures?|__fixtures__|testdata|test-data)(?:[/\\]|$)|[._-](?:test|spec)\.[^/\\]+$/i.test(
    file,
  );
}

/** The file's name without its folders, lowercased. */
export function baseName(file: string): string {
  return (file.split(/[/\\]/).pop() ?? '').toLowerCase();
}
