// Facts about this machine for svc_node. The machine id is derived, not the OS's own id: a hash
// of the OS machine id (or, without one, of hostname and user) so the store never holds it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch, hostname, platform, userInfo } from 'node:os';

function osMachineId(): string | undefined {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      const id = readFileSync(file, 'utf8').trim();
      if (id) return id;
    } catch {
      // Not on this system: try the next source.
    }
  }
  return undefined;
}

export function machineFacts() {
  const source = osMachineId() ?? `${hostname()}\u0000${userInfo().username}`;
  return {
    machine_id: createHash('sha256').update(`svc-machine-v1\u0000${source}`).digest('hex').slice(0, 32),
    hostname: hostname(),
    platform: platform(),
    arch: arch(),
  };
}
