package version

import "testing"

func TestReleaseAndImageTag(t *testing.T) {
	tests := []struct {
		version string
		release bool
		tag     string
	}{
		{version: "v1.2.3", release: true, tag: "v1.2.3"},
		{version: "v1.3.0-rc.1", release: true, tag: "v1.3.0-rc.1"},
		{version: "v1.2.3-4-gabc1234", release: false, tag: "v1.2.3-4-gabc1234"},
		{version: "v1.2.3-dirty", release: false, tag: "v1.2.3-dirty"},
		{version: "v1.2.3-4-gabc1234-dirty", release: false, tag: "v1.2.3-4-gabc1234-dirty"},
		{version: "v0.0.1-snapshot.gabc1234", release: false, tag: "v0.0.1-snapshot.gabc1234"},
		{version: "v1.2.3+meta", release: true, tag: "v1.2.3-meta"},
		{version: "not-semver", release: false, tag: "not-semver"},
	}
	defer func(v string) { version = v }(version)
	for _, tt := range tests {
		version = tt.version
		if got := IsRelease(); got != tt.release {
			t.Errorf("IsRelease() of %s = %v, want %v", tt.version, got, tt.release)
		}
		if got := ImageTag(); got != tt.tag {
			t.Errorf("ImageTag() of %s = %q, want %q", tt.version, got, tt.tag)
		}
	}
}

func TestUnstampedIsDev(t *testing.T) {
	// go test builds without -X: the version is Dev, a development build.
	if Version() != Dev || IsRelease() {
		t.Errorf("Version() = %q, IsRelease() = %v; want %q, false", Version(), IsRelease(), Dev)
	}
	if Commit() == "" {
		t.Error("Commit() is empty; want a revision or none")
	}
}

func TestReleasedModule(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3": true, "(devel)": false, "": false,
		"v0.0.0-20260101120000-abcdefabcdef":       false,
		"v1.2.4-0.20260101120000-abcdefabcdef":     false,
		"v0.0.0-20260101120000-abcdefabcdef+dirty": false,
	} {
		if got := releasedModule(v); got != want {
			t.Errorf("releasedModule(%q) = %v, want %v", v, got, want)
		}
	}
}
