package v1

import "time"

// NeverDuration is the NillableDuration value that turns a timer off.
const NeverDuration = "Never"

// NillableDuration is a duration written with the units s, m and h ("30s", "1h30m", "720h"), or
// "Never" to turn the timer off. It keeps the text as written, so a value read back from the API
// server is the value the user wrote.
type NillableDuration string

// IsNever reports whether the duration is "Never".
func (d NillableDuration) IsNever() bool { return d == NeverDuration }

// Duration returns the duration and true, or false when it is "Never", empty, or longer than
// time.Duration can hold (about 292 years, which means the same as never).
func (d NillableDuration) Duration() (time.Duration, bool) {
	if d == "" || d.IsNever() {
		return 0, false
	}
	v, err := time.ParseDuration(string(d))
	if err != nil {
		return 0, false
	}
	return v, true
}

// Duration is a duration written with the units s, m and h ("30s", "1h30m"). It keeps the text
// as written.
type Duration string

// Duration returns the duration and true, or false when it is empty or longer than
// time.Duration can hold.
func (d Duration) Duration() (time.Duration, bool) {
	if d == "" {
		return 0, false
	}
	v, err := time.ParseDuration(string(d))
	if err != nil {
		return 0, false
	}
	return v, true
}
