// The mail port: "Forgot password" sends its link through SMTP_URL with nodemailer (loaded on
// first use), and tests read what was sent from a loopback SMTP server.
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  let transport: Promise<{ sendMail(m: object): Promise<unknown> }> | undefined;
  return {
    async send(mail) {
      transport ??= import('nodemailer').then((m) => m.createTransport(smtpUrl));
      await (await transport).sendMail({ from, ...mail });
    },
  };
}
