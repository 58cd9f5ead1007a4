// `svc send`, `svc deliver`, `svc burn` and `svc links` (docs/SHARE.md, docs/CLI.md): share links
// made on this computer's service. The content is sealed here; the link, with its key after `#`,
// is printed once on standard output and nowhere else, so it can be piped or pasted as it is.
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import type { Service } from '../backend/service.ts';
import { ops } from '../backend/operations/index.ts';
import { ServiceError } from '../backend/errors.ts';
import { LINK_MAX_OPENS, LINK_MAX_TTL_HOURS, LINK_MAX_BYTES } from '../backend/vocabulary.ts';

const USAGE_EXIT = 2;
const usage = (message: string) => new CommanderError(USAGE_EXIT, 'svc.usage', message);

export interface ShareCommandDeps {
  /** Runs `work` with this computer's service, closed afterwards: each command is one use. */
  withService<T>(work: (service: Service) => Promise<T>): Promise<T>;
  ownerKey(): string;
}

interface SendFlags {
  expires?: string;
  maxOpens?: string;
  code?: boolean;
  viewOnly?: boolean;
  from?: string;
  json?: boolean;
}

/** `--expires`: whole hours or days (`36h`, `7d`), 1 hour to 30 days. */
export function hoursOf(text: string): number {
  const match = /^(\d{1,4})\s*(h|d)$/i.exec(text.trim());
  const hours = match ? Number(match[1]) * (match[2]!.toLowerCase() === 'd' ? 24 : 1) : NaN;
  if (!Number.isInteger(hours) || hours < 1 || hours > LINK_MAX_TTL_HOURS) {
    throw usage(
      `--expires takes hours or days from 1h to ${LINK_MAX_TTL_HOURS / 24}d (24h, 7d), not \`${text}\``,
    );
  }
  return hours;
}

function opensOf(text: string): number {
  const opens = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(opens >= 1 && opens <= LINK_MAX_OPENS))
    throw usage(`--max-opens takes 1 to ${LINK_MAX_OPENS}, not \`${text}\``);
  return opens;
}

/** The file, or standard input for `-`: a message without a name. */
async function contentOf(file: string): Promise<{ bytes: Uint8Array; name?: string }> {
  if (file !== '-') {
    // A file that is not there or cannot be read is a failure (exit 1, `not_found` when missing),
    // as docs/CLI.md says of every command; a folder is bad usage of this one.
    const unreadable = (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR'
        ? new ServiceError('not_found', `no file at ${file}: give a file that exists (or pipe text with -)`)
        : new ServiceError(
            'invalid_request',
            `cannot read ${file} (${code ?? String(error)}): give a file this user can read`,
          );
    };
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw usage(`${file} is not a file: send one file (or pipe text with -)`);
      size = stat.size;
    } catch (error) {
      if (error instanceof CommanderError) throw error;
      throw unreadable(error);
    }
    if (size > LINK_MAX_BYTES)
      throw usage(`${file} is ${size} bytes; a link carries at most ${LINK_MAX_BYTES}`);
    try {
      return { bytes: readFileSync(file), name: basename(file) };
    } catch (error) {
      throw unreadable(error);
    }
  }
  if (process.stdin.isTTY) throw usage('give a FILE, or pipe the text to send on standard input with -');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks) };
}

export function addShareCommands(program: Command, deps: ShareCommandDeps): void {
  const { withService } = deps;

  const send = async (file: string, flags: SendFlags, burnAfterRead: boolean) => {
    const bearer = deps.ownerKey();
    const content = await contentOf(file);
    const { sendLink } = await import('../backend/share-client.ts');
    const sent = await withService((service) =>
      sendLink(service.invoker, bearer, {
        ...content,
        expiresHours: flags.expires === undefined ? undefined : hoursOf(flags.expires),
        maxOpens: flags.maxOpens === undefined ? undefined : opensOf(flags.maxOpens),
        burnAfterRead,
        viewOnly: flags.viewOnly,
        code: flags.code,
        senderName: flags.from,
      }),
    );
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(sent)}\n`);
      return;
    }
    // The link alone on standard output: `svc send f | pbcopy` copies exactly the link.
    process.stdout.write(`${sent.url}\n`);
    const opens = sent.burn_after_read
      ? 'opens once, then is destroyed'
      : `opens up to ${sent.max_opens} times`;
    const lines = [
      `svc: link ${sent.link_id} ${opens}, until ${sent.expires_at}${sent.view_only ? ', view only' : ''}`,
    ];
    if (sent.code) lines.push(`svc: access code ${sent.code} (send it another way than the link)`);
    if (sent.note) lines.push(`svc: ${sent.note}`);
    process.stderr.write(`${lines.join('\n')}\n`);
  };

  const sendOptions = (command: Command) =>
    command
      .option('--expires <time>', 'how long the link lives: 1h to 30d (default 24h)')
      .option('--code', 'make an access code the link also needs (printed once, to send separately)')
      .option('--view-only', 'the page shows the content and offers no download')
      .option('--from <name>', 'a name the page shows as the sender')
      .option('--json', 'print one JSON object (the link is its `url`)');

  sendOptions(
    program
      .command('send')
      .description('share a file (or text on standard input) as a link; needs SVC_API_KEY (docs/SHARE.md)')
      .argument('<file>', 'the file, or - for standard input')
      .option('--max-opens <n>', `how many times it opens: 1 to ${LINK_MAX_OPENS} (default 5)`),
  ).action((file: string, flags: SendFlags) => send(file, flags, false));

  sendOptions(
    program
      .command('deliver')
      .description(
        'share a file (or text) as a burn-after-read link: one open, then destroyed; needs SVC_API_KEY',
      )
      .argument('<file>', 'the file, or - for standard input'),
  ).action((file: string, flags: SendFlags) => send(file, flags, true));

  program
    .command('burn')
    .description('destroy a link now: its content is deleted from the service; needs SVC_API_KEY')
    .argument('<link>', 'the link, or its id')
    .option('--json', 'print JSON')
    .action(async (link: string, flags: { json?: boolean }) => {
      const bearer = deps.ownerKey();
      const { linkIdOf } = await import('../backend/share-client.ts');
      const ended = await withService((service) =>
        service.invoke(ops.burnLink, bearer, { link_id: linkIdOf(link) }),
      );
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(ended)}\n`
          : ended.already_ended
            ? `link ${ended.link_id} had already ended (${ended.state})\n`
            : `link ${ended.link_id} burned: its content is gone (receipt ${ended.receipt!.receipt_id})\n`,
      );
    });

  const links = program
    .command('links')
    .description("this organization's links, or one link with every open attempt; needs SVC_API_KEY")
    .argument('[link]', 'a link or its id: show it with its attempts')
    .option('--json', 'print JSON')
    .action(async (link: string | undefined, flags: { json?: boolean }) => {
      const bearer = deps.ownerKey();
      const { linkIdOf } = await import('../backend/share-client.ts');
      if (link !== undefined) {
        const one = await withService((service) =>
          service.invoke(ops.linkStatus, bearer, { link_id: linkIdOf(link) }),
        );
        if (flags.json) return void process.stdout.write(`${JSON.stringify(one)}\n`);
        const lines = [
          `link ${one.link_id}: ${one.state}, opened ${one.opens_used} of ${one.max_opens}, expires ${one.expires_at}`,
          ...one.attempts.map(
            (a) => `  ${a.at}  ${a.outcome.padEnd(5)}  ${a.reason.padEnd(16)}  receipt ${a.receipt_id}`,
          ),
        ];
        if (one.attempts.length === 0) lines.push('  no open attempts yet');
        return void process.stdout.write(`${lines.join('\n')}\n`);
      }
      const all = await withService((service) => service.invoke(ops.listLinks, bearer, {}));
      if (flags.json) return void process.stdout.write(`${JSON.stringify(all)}\n`);
      process.stdout.write(
        all.count === 0
          ? 'no links yet: svc send FILE makes one\n'
          : `${all.links
              .map(
                (l) =>
                  `${l.link_id}  ${l.state.padEnd(8)}  ${l.opens_used}/${l.max_opens} opens  ${l.content_type.split(';')[0]}  expires ${l.expires_at}`,
              )
              .join('\n')}\n`,
      );
    });
  links
    .command('revoke')
    .description(
      "revoke one of the organization's links by policy; its page says so (needs the governance scope)",
    )
    .argument('<link>', 'the link, or its id')
    .option('--reason <text>', 'why, shown on the link page')
    .option('--json', 'print JSON')
    .action(async (link: string, flags: { reason?: string; json?: boolean }) => {
      const bearer = deps.ownerKey();
      const { linkIdOf } = await import('../backend/share-client.ts');
      const ended = await withService((service) =>
        service.invoke(ops.revokeLink, bearer, {
          link_id: linkIdOf(link),
          ...(flags.reason ? { reason: flags.reason } : {}),
        }),
      );
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(ended)}\n`
          : ended.already_ended
            ? `link ${ended.link_id} had already ended (${ended.state})\n`
            : `link ${ended.link_id} revoked (receipt ${ended.receipt!.receipt_id})\n`,
      );
    });
}
