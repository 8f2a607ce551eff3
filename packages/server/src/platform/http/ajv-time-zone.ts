// Teaches Fastify's Ajv the "iana-time-zone" format of the shared settings schema (contracts'
// time-zone.ts): the check the agent's TypeBox runs, so a zone the agent would not know is refused
// when the owner saves it.
import type { Ajv } from 'ajv';
import { isTimeZone, TIME_ZONE_FORMAT } from '@berth/contracts/settings';

export function timeZoneFormat(ajv: Ajv) {
  ajv.addFormat(TIME_ZONE_FORMAT, { type: 'string', validate: isTimeZone });
  return ajv;
}
