/** A file Berth will not read, on any channel: the sentence the user is sent instead (no model call). */
export class MediaRefusal extends Error {
  constructor(readonly sentence: string) {
    super(sentence);
    this.name = 'MediaRefusal';
  }
}
