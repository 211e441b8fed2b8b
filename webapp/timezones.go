package webapp

// timezones are the time zones the campaign builder offers, by region: the ones outreach
// teams work in most. A campaign made through the API may use any other IANA name; the builder
// then offers that one too, so saving never changes it unasked.
var timezones = []string{
	"UTC",
	"Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Brussels", "Europe/Amsterdam",
	"Europe/Luxembourg", "Europe/Berlin", "Europe/Zurich", "Europe/Vienna", "Europe/Madrid", "Europe/Rome",
	"Europe/Copenhagen", "Europe/Oslo", "Europe/Stockholm", "Europe/Helsinki", "Europe/Warsaw", "Europe/Prague",
	"Europe/Budapest", "Europe/Bucharest", "Europe/Sofia", "Europe/Athens", "Europe/Istanbul", "Europe/Kyiv",
	"Europe/Moscow",
	"America/New_York", "America/Toronto", "America/Chicago", "America/Mexico_City", "America/Denver",
	"America/Phoenix", "America/Los_Angeles", "America/Vancouver", "America/Anchorage", "Pacific/Honolulu",
	"America/Halifax", "America/Bogota", "America/Lima", "America/Santiago", "America/Buenos_Aires",
	"America/Sao_Paulo",
	"Africa/Casablanca", "Africa/Lagos", "Africa/Cairo", "Africa/Johannesburg", "Africa/Nairobi",
	"Asia/Dubai", "Asia/Riyadh", "Asia/Jerusalem", "Asia/Karachi", "Asia/Kolkata", "Asia/Dhaka", "Asia/Bangkok",
	"Asia/Jakarta", "Asia/Ho_Chi_Minh", "Asia/Singapore", "Asia/Kuala_Lumpur", "Asia/Manila", "Asia/Hong_Kong",
	"Asia/Shanghai", "Asia/Taipei", "Asia/Seoul", "Asia/Tokyo",
	"Australia/Perth", "Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney", "Australia/Melbourne",
	"Pacific/Auckland",
}

// timezonesWith is timezones with tz added first when it is not among them.
func timezonesWith(tz string) []string {
	for _, z := range timezones {
		if z == tz {
			return timezones
		}
	}
	if tz == "" {
		return timezones
	}
	return append([]string{tz}, timezones...)
}
