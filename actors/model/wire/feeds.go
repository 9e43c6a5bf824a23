package wire

import "github.com/slotd/slotd/actors/model"

// AppendFeed appends calendar feed f (decisions §8); url and webcalUrl
// are written only when url is not "": the create answer is the one place
// the secret address is shown.
func AppendFeed(b []byte, f *model.Feed, url, webcal string) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, f.ID)
	b = AppendKey(b, "staffMemberId")
	b = AppendNullUUID(b, f.StaffID)
	b = AppendKey(b, "resourceId")
	b = AppendNullUUID(b, f.ResourceID)
	b = AppendKey(b, "includeCustomerNames")
	b = AppendBool(b, f.IncludeCustomerNames)
	if url != "" {
		b = AppendKey(b, "url")
		b = AppendString(b, url)
		b = AppendKey(b, "webcalUrl")
		b = AppendString(b, webcal)
	}
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, f.CreatedAt)
	return append(b, '}')
}

// AppendSource appends calendar source c (decisions §8): lastSyncAt and
// lastError are null until a fetch succeeds or fails.
func AppendSource(b []byte, c *model.CalendarSource) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, c.ID)
	b = AppendKey(b, "url")
	b = AppendString(b, c.URL)
	b = AppendKey(b, "refreshMinutes")
	b = AppendInt(b, c.RefreshMinutes)
	b = AppendKey(b, "lastSyncAt")
	if c.LastSyncAt.IsZero() {
		b = append(b, "null"...)
	} else {
		b = AppendTime(b, c.LastSyncAt)
	}
	b = AppendKey(b, "lastError")
	if c.LastError == "" {
		b = append(b, "null"...)
	} else {
		b = AppendString(b, c.LastError)
	}
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, c.CreatedAt)
	return append(b, '}')
}
