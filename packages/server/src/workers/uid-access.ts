// Whether a uid can reach a file by its path: search permission on every directory above it, and
// read permission on the file, by the owner, group or others bits that apply to that uid (its
// group taken as the gid of the same number, as the agent host is started). For the control plane
// run as root, which starts its agent host as AGENT_HOST_UID: a checkout in a `mktemp -d`
// directory (0700) or under /root started no host, and Node, as that uid, said only "Cannot find
// module". Opening such a directory to every local user is not the control plane's to decide
// (/root holds other secrets), so the start fails with the directory and what to do instead.
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Permission bits that apply to `uid` (and gid = uid): owner, group or others. */
function allows(st: { uid: number; gid: number; mode: number }, uid: number, bit: 1 | 4) {
  const shift = st.uid === uid ? 6 : st.gid === uid ? 3 : 0;
  return (st.mode & (bit << shift)) !== 0;
}

/** The first directory above `file` that `uid` cannot enter, or `file` if it cannot read it; undefined when it can. */
export function blockedFor(uid: number, file: string): { path: string; mode: number } | undefined {
  const real = realpathSync(file);
  const dirs: string[] = [];
  for (let d = dirname(real); ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === dirname(d)) break;
  }
  for (const d of dirs) {
    const st = statSync(d);
    if (!allows(st, uid, 1)) return { path: d, mode: st.mode & 0o7777 };
  }
  const st = statSync(real);
  return allows(st, uid, 4) ? undefined : { path: real, mode: st.mode & 0o7777 };
}

/** Throws, saying what to change, unless `uid` can reach each of `files` (the agent's program, Node). */
export function assertReachableBy(uid: number, files: string[]) {
  for (const file of files) {
    const blocked = blockedFor(uid, file);
    if (!blocked) continue;
    const what = blocked.path === realpathSync(file) ? 'read' : 'enter';
    throw new Error(
      `the agent host runs as uid ${uid} (AGENT_HOST_UID), which cannot ${what} ${blocked.path} (mode ${blocked.mode.toString(8).padStart(4, '0')}) on the way to ${file}: let it (chmod o+${what === 'read' ? 'r' : 'x'} ${blocked.path}), or install Berth where every user can read it`,
    );
  }
}
