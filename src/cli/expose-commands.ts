// `svc expose FOLDER`, `svc expose list` and `svc expose end` (docs/SHARE.md, Exposures; docs/CLI.md):
// a folder of this computer offered to a partner for a time. The partner's link is printed once on
// standard output, alone, so it can be piped or pasted; the access code, if any, on standard error.
import { Command, CommanderError } from 'commander';
import type { Service } from '../backend/service.ts';
import { ops } from '../backend/operations/index.ts';
import { ServiceError } from '../backend/errors.ts';
import { EXPOSURE_MAX_COPIES } from '../backend/vocabulary.ts';
import { hoursOf } from './share-commands.ts';

const USAGE_EXIT = 2;
const usage = (message: string) => new CommanderError(USAGE_EXIT, 'svc.usage', message);

export interface ExposeCommandDeps {
  /** Runs `work` with this computer's service, closed afterwards: each command is one use. */
  withService<T>(work: (service: Service) => Promise<T>): Promise<T>;
}

function copiesOf(text: string): number {
  const copies = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(copies >= 1 && copies <= EXPOSURE_MAX_COPIES))
    throw usage(`--max-copies takes 1 to ${EXPOSURE_MAX_COPIES}, not \`${text}\``);
  return copies;
}

export function addExposeCommands(program: Command, deps: ExposeCommandDeps): void {
  const { withService } = deps;

  const expose = program
    .command('expose')
    .description(
      'offer a folder to a partner for a time: the link lists the files the read gate lets out, each asked for as a clean copy (docs/SHARE.md)',
    )
    .argument('<folder>', 'the folder to offer')
    .option('--expires <time>', 'how long the link lives: 1h to 30d (default 24h)')
    .option(
      '--max-copies <n>',
      `how many clean copies it gives in all: 1 to ${EXPOSURE_MAX_COPIES} (default 10)`,
    )
    .option('--code', 'make an access code every copy also needs (printed once, to send separately)')
    .option('--json', 'print one JSON object (the link is its `url`)')
    .action(
      async (
        folder: string,
        flags: { expires?: string; maxCopies?: string; code?: boolean; json?: boolean },
      ) => {
        const { resolve } = await import('node:path');
        const { exposeFolder } = await import('../backend/expose-client.ts');
        const exposed = await withService((service) =>
          exposeFolder(service.invoker, {
            folder: resolve(folder),
            expiresHours: flags.expires === undefined ? undefined : hoursOf(flags.expires),
            maxCopies: flags.maxCopies === undefined ? undefined : copiesOf(flags.maxCopies),
            code: flags.code,
            by: 'cli',
          }),
        );
        if (flags.json) return void process.stdout.write(`${JSON.stringify(exposed)}\n`);
        process.stdout.write(`${exposed.url}\n`);
        const lines = [
          `svc: ${exposed.folder} exposed as ${exposed.exposure_id}: up to ${exposed.max_copies} clean copies, until ${exposed.expires_at}`,
        ];
        if (exposed.code) lines.push(`svc: access code ${exposed.code} (send it another way than the link)`);
        if (exposed.note) lines.push(`svc: ${exposed.note}`);
        lines.push(`svc: end it any time with svc expose end ${exposed.exposure_id}`);
        process.stderr.write(`${lines.join('\n')}\n`);
      },
    );

  expose
    .command('list')
    .description("this computer's exposures, newest first")
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const all = await withService((service) => service.invoke(ops.listExposures, undefined, {}));
      if (flags.json) return void process.stdout.write(`${JSON.stringify(all)}\n`);
      process.stdout.write(
        all.count === 0
          ? 'no exposures yet: svc expose FOLDER makes one\n'
          : `${all.exposures
              .map(
                (e) =>
                  `${e.exposure_id}  ${e.state.padEnd(8)}  ${e.copies_used}/${e.max_copies} copies  until ${e.expires_at}  ${e.folder}`,
              )
              .join('\n')}\n`,
      );
    });

  expose
    .command('end')
    .description('end an exposure now: nothing more is listed or copied; receipted')
    .argument('<exposure>', 'the exposure link, or its id')
    .option('--json', 'print JSON')
    .action(async (exposure: string, flags: { json?: boolean }) => {
      const { exposureIdOf } = await import('../backend/expose-client.ts');
      // An argument that is no exposure id or link is bad usage (exit 2), as docs/CLI.md says; an
      // id of no exposure is refused by the service (exit 1).
      let exposureId: string;
      try {
        exposureId = exposureIdOf(exposure);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        throw usage(`${error.message}; \`svc expose list\` lists them`);
      }
      const ended = await withService((service) =>
        service.invoke(ops.endExposure, undefined, { exposure_id: exposureId, by: 'cli' }),
      );
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(ended)}\n`
          : ended.already_ended
            ? `exposure ${ended.exposure_id} had already ended (${ended.state})\n`
            : `exposure ${ended.exposure_id} ended after ${ended.copies_used} copies (receipt ${ended.receipt!.receipt_id})\n`,
      );
    });
}
