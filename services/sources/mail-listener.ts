// The inbound SMTP listener of email inboxes (smtp-server): mail only for known inbox addresses, at most
// mailSizeLimit bytes, each message kept by the intake before it is answered 250. Nothing a sender does (malformed
// MIME, a message cut off, a dropped connection) reaches past its own message, and no fault of ours is answered
// with a 5xx: senders take those as bounces, and newsletters unsubscribe addresses that bounce.
import type { Logger } from "@trove/log";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { MailRefused, type MailIntake } from "./mail-intake.ts";

/** The largest message taken (advertised with SIZE; a longer DATA stream is read to its end and refused with 552). */
export const mailSizeLimit = 10 * 1024 * 1024;
/** Connections at once: with the size cap, bounds the memory mail can take (20 × 10 MB). */
const maxClients = 20;

export interface MailListener {
  port: number;
  stop(): Promise<void>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * Listens on host:port; resolves null when the port is taken (another sources replica on this host holds it):
 * this replica then serves everything but mail.
 */
export function startMailListener(intake: MailIntake, opts: { host: string; port: number; log: Logger }): Promise<MailListener | null> {
  const { log } = opts;
  const server = new SMTPServer({
    name: "trove",
    banner: "Trove inbox",
    size: mailSizeLimit,
    maxClients,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      intake.recipient(address.address).then(
        (state) => {
          if (state === "unknown") return callback(smtpError(550, "5.1.1 no such inbox"));
          // A paused inbox defers (4xx): senders retry for days, and a resume within that time gets the mail; a
          // 5xx would count as a bounce, and newsletters unsubscribe addresses that bounce.
          if (state === "paused") return callback(smtpError(450, "4.2.1 this inbox is paused; try again later"));
          callback();
        },
        (err) => {
          log.error({ err }, "inbox lookup failed");
          callback(smtpError(451, "4.3.0 temporary failure; try again later"));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      let kept = 0;
      stream.on("data", (chunk: Buffer) => {
        // Past the cap nothing is kept; the stream is still read to its end so the reply comes in order.
        if (kept + chunk.length <= mailSizeLimit) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      stream.on("error", (err) => callback(smtpError(451, `4.3.0 ${err.message}`)));
      stream.on("end", () => {
        if (stream.sizeExceeded || kept < stream.byteLength) {
          return callback(smtpError(552, `5.3.4 message larger than ${mailSizeLimit} bytes`));
        }
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        // 250 only once the message is kept (committed): from then on it becomes items or a listed failure.
        intake.take(Buffer.concat(chunks), recipients, from).then(
          () => callback(),
          (err) => {
            if (err instanceof MailRefused) {
              log.info({ code: err.responseCode, reason: err.message }, "a message was not taken");
              return callback(smtpError(err.responseCode, err.message));
            }
            // Ours (the database, most likely): the sender keeps the message and tries again later.
            log.error({ err }, "a message could not be kept");
            callback(smtpError(451, "4.3.0 temporary failure; try again later"));
          },
        );
      });
    },
  });
  server.on("error", (err) => log.warn({ err: err.message }, "mail listener error"));
  return new Promise((resolve) => {
    const onListenError = (err: NodeJS.ErrnoException) => {
      if (err.code !== "EADDRINUSE") log.error({ err }, "mail listener could not start");
      else log.warn({ port: opts.port }, "the SMTP port is taken (another sources replica here?): this replica takes no mail");
      resolve(null);
    };
    server.server.once("error", onListenError);
    server.listen(opts.port, opts.host, () => {
      server.server.off("error", onListenError);
      const address = server.server.address();
      const port = typeof address === "object" && address ? address.port : opts.port;
      log.info({ port }, "mail listener started");
      // Once: the host's stop closes it in its first phase and again in the service's own stop.
      let closed: Promise<void> | undefined;
      resolve({ port, stop: () => (closed ??= new Promise<void>((done) => server.close(() => done()))) });
    });
  });
}
