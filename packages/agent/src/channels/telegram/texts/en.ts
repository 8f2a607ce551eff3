// Berth's own sentences in English: the catalog every other language follows key for key.
export const en = {
  help: 'Send me a message and I will answer.\n\n/reset starts a new conversation\n/help shows this message',
  welcome: 'Hello! Send me a message and I will answer.\n\n/reset starts a new conversation\n/help shows this message',
  reset: 'Started a new conversation.',
  resetAdminsOnly: 'Only an administrator of this group can start a new conversation here.',
  textOnly: 'I can only read text messages for now. Please write to me in words.',
  slowDown: 'You are sending messages faster than I can answer. Please wait a minute.',
  /** A Telegram user is not the one who pays: a plain sentence, no codes or amounts. */
  credits:
    'I have used up my message allowance for this month, so I cannot answer right now. Please try again after it renews.',
  failed: 'Sorry, I could not answer just now. Please try again in a moment.',
  limits: 'This conversation has grown too long for me to keep. Send /reset to start a new one.',
  commandStart: 'Start the conversation',
  commandHelp: 'How to talk to me',
  commandReset: 'Start a new conversation',
};

export type Texts = typeof en;
