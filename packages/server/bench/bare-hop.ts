// The floor under bench:gateway and bench:proxy: a bare Node process that forwards each call (to the
// router, or to a worker) and returns the answer. What it adds over the direct call is what any
// extra process hop costs on the machine, whatever runs in it.
// testkit's http module alone: its index would load every fake into the measured process.
import { listen } from '@berth/testkit/http';
import { forwardingHop } from './forwarding-hop.js';
import { answerMemoryReadings, ready } from './processes.js';

const origin = await listen(forwardingHop(new URL(process.argv[2]!)));
// bench:streams reads the hop's live memory per open stream next to the control plane's.
answerMemoryReadings('hop');
ready(`bare hop listening on ${origin}`);
