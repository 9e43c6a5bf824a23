package transport

import (
	"github.com/slotd/slotd/actors/catalog"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/valyala/fasthttp"
)

// writeJSON sends body (copied) with status.
func writeJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

// appendMe appends the GET /me body (decisions §3).
func appendMe(b []byte, st *tenant.State, k *catalog.Key) []byte {
	biz := &st.Business
	b = append(b, '{')
	b = appendKey(b, "id")
	b = appendUUID(b, biz.ID)
	b = appendKey(b, "name")
	b = appendString(b, biz.Name)
	b = appendKey(b, "timezone")
	b = appendString(b, biz.Timezone)
	b = appendKey(b, "currency")
	b = appendString(b, biz.Currency)
	b = appendKey(b, "plan")
	b = appendString(b, string(biz.Plan))
	b = appendKey(b, "scopes")
	b = appendStrings(b, k.Scopes)
	return append(b, '}')
}

// appendService appends a service; detail adds its pricing rules.
func appendService(b []byte, s *catalog.Service, detail bool) []byte {
	b = append(b, '{')
	b = appendKey(b, "id")
	b = appendUUID(b, s.ID)
	b = appendKey(b, "name")
	b = appendString(b, s.Name)
	b = appendKey(b, "description")
	b = appendNullString(b, s.Description)
	b = appendKey(b, "durationMinutes")
	b = appendInt(b, s.DurationMinutes)
	b = appendKey(b, "priceCents")
	b = appendInt(b, s.PriceCents)
	b = appendKey(b, "isActive")
	b = appendBool(b, s.IsActive)
	b = appendKey(b, "categoryId")
	b = appendUUID(b, s.CategoryID)
	b = appendKey(b, "paymentRequired")
	b = appendBool(b, s.PaymentRequired)
	b = appendKey(b, "depositCents")
	b = appendNullInt(b, s.DepositCents)
	b = appendKey(b, "imageUrl")
	b = appendNullString(b, s.ImageURL)
	b = appendKey(b, "segments")
	b = appendSegmentTemplates(b, s.Segments)
	if detail {
		b = appendKey(b, "pricingRules")
		b = appendPricingRules(b, s.PricingRules)
	}
	b = appendKey(b, "createdAt")
	b = appendTime(b, s.CreatedAt)
	b = appendKey(b, "updatedAt")
	b = appendTime(b, s.UpdatedAt)
	return append(b, '}')
}

func appendSegmentTemplates(b []byte, segs []catalog.SegmentTemplate) []byte {
	b = append(b, '[')
	for i, sg := range segs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendKey(b, "position")
		b = appendInt(b, i)
		b = appendKey(b, "kind")
		b = appendString(b, string(sg.Kind))
		b = appendKey(b, "durationMinutes")
		b = appendInt(b, sg.DurationMinutes)
		b = appendKey(b, "label")
		b = appendNullString(b, sg.Label)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendPricingRules(b []byte, rules []catalog.PricingRule) []byte {
	b = append(b, '[')
	for i, r := range rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendKey(b, "days")
		b = append(b, '[')
		for j, d := range r.Days {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, catalog.DayName(d))
		}
		b = append(b, ']')
		b = appendKey(b, "from")
		b = appendString(b, r.From.String())
		b = appendKey(b, "to")
		b = appendString(b, r.To.String())
		b = appendKey(b, "priceCents")
		b = appendInt(b, r.PriceCents)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendCategory(b []byte, c *catalog.Category) []byte {
	b = append(b, '{')
	b = appendKey(b, "id")
	b = appendUUID(b, c.ID)
	b = appendKey(b, "name")
	b = appendString(b, c.Name)
	b = appendKey(b, "parentId")
	b = appendNullUUID(b, c.ParentID)
	b = appendKey(b, "position")
	b = appendInt(b, c.Position)
	b = appendKey(b, "createdAt")
	b = appendTime(b, c.CreatedAt)
	b = appendKey(b, "updatedAt")
	b = appendTime(b, c.UpdatedAt)
	return append(b, '}')
}

func appendStaff(b []byte, s *catalog.Staff) []byte {
	b = append(b, '{')
	b = appendKey(b, "id")
	b = appendUUID(b, s.ID)
	b = appendKey(b, "name")
	b = appendString(b, s.Name)
	b = appendKey(b, "isActive")
	b = appendBool(b, s.IsActive)
	b = appendKey(b, "isBookable")
	b = appendBool(b, s.IsBookable)
	b = appendKey(b, "assignedServiceIds")
	b = append(b, '[')
	for i, id := range s.AssignedServiceIDs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendUUID(b, id)
	}
	b = append(b, ']')
	b = appendKey(b, "createdAt")
	b = appendTime(b, s.CreatedAt)
	b = appendKey(b, "updatedAt")
	b = appendTime(b, s.UpdatedAt)
	return append(b, '}')
}

// appendCustomer appends the standalone customer (decisions §3).
func appendCustomer(b []byte, c *catalog.Customer) []byte {
	b = append(b, '{')
	b = appendKey(b, "id")
	b = appendUUID(b, c.ID)
	b = appendKey(b, "firstName")
	b = appendString(b, c.FirstName)
	b = appendKey(b, "lastName")
	b = appendString(b, c.LastName)
	b = appendKey(b, "email")
	b = appendString(b, c.Email)
	b = appendKey(b, "phone")
	b = appendString(b, c.Phone)
	b = appendKey(b, "createdAt")
	b = appendTime(b, c.CreatedAt)
	b = appendKey(b, "updatedAt")
	b = appendTime(b, c.UpdatedAt)
	return append(b, '}')
}
