// Package mail owns slotd's outbound e-mail: it sends the messages that
// writes queue in the outbox. It sits beside the webhook sender because
// both carry a business's notifications out of the process.
//
// A write that should e-mail someone (a booking confirmation, a status
// change, the owner's notice of an auto-disabled webhook endpoint) stores a
// record.MailRow in the storage outbox table in the same synced batch as
// the write itself (storage/outbox.go; the business actor writes it). This
// package turns such rows into messages and delivers them:
//
//   - Render builds a Message (subject, plain text and HTML) from a row.
//   - Message.Bytes encodes it as an RFC 5322 / MIME message.
//   - A Sender delivers it: SMTP (--smtp, --smtp-user, --smtp-password,
//     --smtp-from), one kept connection carrying many messages, pipelined
//     when the server offers it; or Mbox, which appends each batch to the
//     day's mailbox DATA/outbox/YYYY-MM-DD.mbox with one sync when no SMTP
//     server is configured (decisions §1). NewSender picks one from the
//     serve flags.
//   - A Drainer walks the outbox, sends every row and deletes it only after
//     the send succeeded, so delivery is at least once across restarts. A
//     failing message backs off on its own (1 s, 2 s, 4 s … 5 min, the
//     count and next try kept beside its row, across restarts too) while
//     the others go out; a row that cannot be rendered is logged (its id and the reason, not its
//     content) and deleted instead of being retried forever.
//
// Locales: the strings of a message come from a small table keyed by locale
// (locale.go). Only English exists today, and the outbox row carries no
// locale because businesses have no locale setting yet; Render reads an
// optional "locale" member of the row so that the writer can start sending
// one without changes here, and falls back to English for anything missing.
package mail
