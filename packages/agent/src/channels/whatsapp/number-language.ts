// The language of a WhatsApp number's country, for Berth's own sentences when the owner left
// settings.language on "auto": Meta's webhook carries the sender's number (wa_id) and no locale.
// libphonenumber-js finds the country (its small metadata tells +1 US from +1 CA, +7 RU from KZ);
// the map below names the language most people there read among the catalogue's six.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

const BY_REGION: Record<string, string> = {};
const speak = (language: string, regions: string) => {
  for (const r of regions.split(' ')) BY_REGION[r] = language;
};
speak('de', 'DE AT CH LI');
speak('es', 'ES MX AR CO PE VE CL EC GT CU BO DO HN PY SV NI CR PA UY PR GQ');
speak('fr', 'FR MC SN CI ML BF NE GN BJ TG CD CG GA CM MG HT TD CF DJ KM BI RE GP MQ GF YT PM NC PF WF BL MF');
speak('pt', 'PT BR AO MZ CV GW ST');
speak('ru', 'RU BY KZ KG');

/** "de", "es", … for a wa_id (digits with the country code, no "+"), or undefined when not one of those. */
export function languageOfNumber(waId: string): string | undefined {
  if (!/^[0-9]{6,20}$/.test(waId)) return undefined;
  const region = parsePhoneNumberFromString(`+${waId}`)?.country;
  return region ? BY_REGION[region] : undefined;
}
