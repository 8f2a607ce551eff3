// Berth's own sentences in English: the catalog every other language follows key for key.
export const en = {
  help: 'Send me a message and I will answer. My commands:',
  welcome: 'Hello! Send me a message and I will answer.\n\n/reset starts a new conversation\n/help shows this message',
  reset: 'Started a new conversation.',
  resetAdminsOnly: 'Only an administrator of this group can start a new conversation here.',
  textOnly: 'I can only read text messages for now. Please write to me in words.',
  // Photos, voice notes and documents (DESIGN §7.3); {why}, {name}, {what} are filled in.
  unsupported:
    'I can read text, photos, voice notes and documents (PDF, plain text, Markdown, CSV and JSON). I cannot read this kind of message.',
  noVision:
    'I can read text, voice notes and documents (PDF, plain text, Markdown, CSV and JSON), but not pictures with this model. Please describe the photo in words.',
  noAudio: 'I cannot listen to voice notes with this model. Please write your message in words.',
  audioTooLong: 'That recording is longer than 10 minutes; please send a shorter one.',
  fileTooBig: 'That file is larger than 20 MB, which is more than I can read. Please send a smaller one.',
  unsupportedDocument: 'I can read PDF, plain text, Markdown, CSV and JSON documents; this file is none of those.',
  downloadFailed: 'I could not download that file from Telegram. Please send it again.',
  notImage: 'That file is not a picture I can read (PNG, JPEG, GIF or WebP).',
  emptyTranscript: 'I could not make out any words in that recording.',
  transcriptionFailed: 'I could not transcribe that recording just now. Please try again, or write your message.',
  transcriptionRefused: 'I could not transcribe that recording ({why}).',
  unreadableDocument: 'I could not read that document: {why}.',
  documentCut: '{name} is long: I read only {what}.',
  slowDown: 'You are sending messages faster than I can answer. Please wait a minute.',
  queueFull: 'I am still working through your earlier messages. Send this one again once I have answered them.',
  /** A Telegram user is not the one who pays: a plain sentence, no codes or amounts. */
  credits:
    'I have used up my message allowance for this month, so I cannot answer right now. Please try again after it renews.',
  failed: 'Sorry, I could not answer just now. Please try again in a moment.',
  limits: 'This conversation has grown too long for me to keep. Send /reset to start a new one.',
  notAllowed: 'Sorry, this assistant only talks to the people its owner has allowed.',
  /** {code}: the pairing code the user sends the owner. */
  pairing: 'This assistant is private. To ask for access, send its owner this code: {code}\nIt is valid for one hour.',
  dailyLimit: 'You have reached your messages for today. Please come back tomorrow.',
  commandStart: 'Start the conversation',
  commandHelp: 'How to talk to me',
  commandReset: 'Start a new conversation',
  commandMemory: 'What I remember about you',
  commandForget: 'Forget what I remember about you',
  commandReminders: 'Your scheduled messages',
  commandTimezone: 'Your time zone',
  locale: 'en-GB',
  memoryHeader: 'What I remember about you:',
  memoryArchived: '{n} older facts are archived and no longer used.',
  memoryForgetHint: '/forget clears it.',
  memoryEmpty: "I don't remember anything about you yet.",
  forgotOne: 'Done: I forgot 1 fact about you.',
  forgotMany: 'Done: I forgot {n} facts about you.',
  nothingToForget: 'There was nothing to forget.',
  remindersEmpty: 'You have no scheduled messages.',
  remindersHeader: 'Your scheduled messages:',
  remindersRepeats: 'repeats ({cron}), next',
  cancelUnknown: 'No scheduled message of yours has that id.',
  cancelled: 'Cancelled.',
  timezoneIs:
    'Your time zone is {zone}; it is {time} there now. To change it, send /timezone followed by a name such as Europe/Berlin.',
  timezoneUnknown:
    "I don't know your time zone yet. Send /timezone followed by a name such as Europe/Berlin or America/New_York.",
  timezoneSet: 'Your time zone is now {zone}; it is {time} there.',
  timezoneInvalid: '"{given}" is not a time zone I know. Use a name such as Europe/Berlin or America/New_York.',
};

export type Texts = typeof en;
