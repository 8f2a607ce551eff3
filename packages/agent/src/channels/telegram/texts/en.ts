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
  notAllowed: 'Sorry, this assistant only talks to the people its owner has allowed.',
  /** {code}: the pairing code the user sends the owner. */
  pairing: 'This assistant is private. To ask for access, send its owner this code: {code}\nIt is valid for one hour.',
  dailyLimit: 'You have reached your messages for today. Please come back tomorrow.',
  commandStart: 'Start the conversation',
  commandHelp: 'How to talk to me',
  commandReset: 'Start a new conversation',
};

export type Texts = typeof en;
