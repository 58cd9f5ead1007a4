// Runs inside a dbus session with a real gnome-keyring daemon of its own (see
// recovery-keychain.test.ts): `backup` seals a file and sets up the recovery phrase on a computer
// whose keys live in that keychain; `restore`, in a later session with a new, empty keyring, is
// the new computer: `svc recover` with the phrase, then the sealed file is opened. Reports what it
// saw as one JSON line.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [step, file, phrase] = process.argv.slice(2);
const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

function svc(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [SVC, ...args], {
    input: input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const seen: Record<string, unknown> = {};
if (step === 'backup') {
  const protect = svc(['protect', file!, '--json']);
  seen.protect_code = protect.code;
  const setup = svc(['recovery', 'setup', '--phrase-to-stdout', '--json']);
  seen.setup_code = setup.code;
  seen.setup_error = setup.code === 0 ? null : setup.stderr;
  seen.phrase = setup.code === 0 ? json(setup.stdout).phrase : null;
} else {
  const recovered = svc(['recover', '--json'], `${phrase}\n`);
  seen.recover_code = recovered.code;
  seen.recovered = recovered.code === 0 ? json(recovered.stdout) : recovered.stderr;
  const opened = svc(['open', file!, '--out', '-']);
  seen.open_code = opened.code;
  seen.opened = opened.stdout;
}
const doctor = svc(['doctor', '--json']);
seen.keys = doctor.code === 0 ? json(doctor.stdout).keys : doctor.stderr;
seen.key_files = existsSync(join(process.env.SVC_HOME!, 'keys'));
process.stdout.write(`${JSON.stringify(seen)}\n`);
