package aws

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// bootstrap is what a node needs to join the cluster with its pool's
// labels, taints and kubelet settings.
type bootstrap struct {
	clusterName, endpoint, ca, cidr, dns string
	labels                               map[string]string
	taints                               []v1.Taint
	kubelet                              *v1.KubeletConfiguration
	custom                               *string // the NodeClass's userData
}

// userData renders the family's bootstrap user data (not yet base64).
func userData(fam string, b bootstrap) (string, error) {
	switch fam {
	case v1.AMIFamilyAL2023:
		return al2023UserData(b)
	case v1.AMIFamilyBottlerocket:
		return bottlerocketUserData(b)
	default:
		if b.custom == nil {
			return "", nil
		}
		return *b.custom, nil
	}
}

// mimeBoundary separates the parts of AL2023 user data, unless a part holds
// it (see boundaryFor).
const mimeBoundary = "//tenon//"

// boundaryFor returns a MIME boundary that no part's body holds: a line
// "--//tenon//" in the NodeClass's script would otherwise end its part, and
// what follows would be read as another part (or dropped). It is
// mimeBoundary when that is free, else mimeBoundary with a counter, so the
// same parts always get the same boundary.
func boundaryFor(parts []mimePart) string {
	taken := func(b string) bool {
		return slices.ContainsFunc(parts, func(p mimePart) bool { return strings.Contains(p.body, "--"+b) })
	}
	b := mimeBoundary
	for n := 1; taken(b); n++ {
		b = fmt.Sprintf("//tenon-%d//", n)
	}
	return b
}

// al2023UserData is a MIME multipart document for nodeadm: the NodeClass's
// own user data (its MIME parts, a NodeConfig, or a shell script) first, then
// Tenon's NodeConfig, which nodeadm merges over it.
func al2023UserData(b bootstrap) (string, error) {
	nodeConfig, err := b.nodeConfig()
	if err != nil {
		return "", err
	}
	var parts []mimePart
	if b.custom != nil && strings.TrimSpace(*b.custom) != "" {
		own, err := userParts(*b.custom)
		if err != nil {
			return "", err
		}
		parts = append(parts, own...)
	}
	parts = append(parts, mimePart{contentType: "application/node.eks.aws", body: nodeConfig})
	boundary := boundaryFor(parts)
	var buf bytes.Buffer
	buf.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"" + boundary + "\"\n\n")
	for _, p := range parts {
		buf.WriteString("--" + boundary + "\nContent-Type: " + p.contentType + "\n\n")
		buf.WriteString(strings.TrimRight(p.body, "\n") + "\n\n")
	}
	buf.WriteString("--" + boundary + "--\n")
	return buf.String(), nil
}

type mimePart struct{ contentType, body string }

// userParts splits the NodeClass's AL2023 user data into MIME parts: a MIME
// document's own parts, or one part typed by its content.
func userParts(data string) ([]mimePart, error) {
	if !strings.HasPrefix(strings.TrimSpace(data), "MIME-Version:") {
		ct := "text/x-shellscript"
		if strings.Contains(data, "node.eks.aws/") {
			ct = "application/node.eks.aws"
		}
		return []mimePart{{contentType: ct, body: data}}, nil
	}
	head, body, ok := strings.Cut(strings.ReplaceAll(data, "\r\n", "\n"), "\n\n")
	if !ok {
		return nil, errors.New("userData: a MIME document needs a blank line after its headers")
	}
	hdr, err := textproto.NewReader(bufio.NewReader(strings.NewReader(head + "\n\n"))).ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("userData: reading the MIME headers: %w", err)
	}
	_, params, err := mime.ParseMediaType(hdr.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, errors.New("userData: the MIME document needs Content-Type multipart/mixed with a boundary")
	}
	r := multipart.NewReader(strings.NewReader(body), params["boundary"])
	var parts []mimePart
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("userData: reading MIME part %d: %w", len(parts)+1, err)
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return nil, fmt.Errorf("userData: reading MIME part %d: %w", len(parts)+1, err)
		}
		parts = append(parts, mimePart{contentType: part.Header.Get("Content-Type"), body: string(b)})
	}
}

// nodeConfig renders nodeadm's NodeConfig.
func (b bootstrap) nodeConfig() (string, error) {
	kubelet := map[string]any{}
	if b.kubelet != nil {
		raw, err := json.Marshal(b.kubelet)
		if err != nil {
			return "", fmt.Errorf("encoding kubelet settings: %w", err)
		}
		config := map[string]any{}
		if err := json.Unmarshal(raw, &config); err != nil {
			return "", fmt.Errorf("encoding kubelet settings: %w", err)
		}
		if len(config) > 0 {
			kubelet["config"] = config
		}
	}
	var flags []string
	if len(b.labels) > 0 {
		flags = append(flags, "--node-labels="+joinLabels(b.labels))
	}
	if len(b.taints) > 0 {
		flags = append(flags, "--register-with-taints="+joinTaints(b.taints))
	}
	if len(flags) > 0 {
		kubelet["flags"] = flags
	}
	doc := map[string]any{
		"apiVersion": "node.eks.aws/v1alpha1",
		"kind":       "NodeConfig",
		"spec": map[string]any{
			"cluster": map[string]any{
				"name": b.clusterName, "apiServerEndpoint": b.endpoint, "certificateAuthority": b.ca, "cidr": b.cidr,
			},
			"kubelet": kubelet,
		},
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("encoding the nodeadm NodeConfig: %w", err)
	}
	return string(out), nil
}

func joinLabels(labels map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		kv = append(kv, k+"="+labels[k])
	}
	return strings.Join(kv, ",")
}

func joinTaints(taints []v1.Taint) string {
	var out []string
	for _, t := range taints {
		out = append(out, t.Key+"="+t.Value+":"+string(t.Effect))
	}
	return strings.Join(out, ",")
}

// bottlerocketUserData is Bottlerocket's TOML settings: the NodeClass's own
// TOML, then Tenon's kubernetes tables. Bottlerocket rejects settings it does
// not know, and has none for podsPerCore, so that kubelet setting is not
// passed (the agent still sizes pods per node by it). Every string is a TOML
// basic string (tomlString), and the whole document is parsed before it is
// returned (checkBottlerocketTOML): the NodeClass's TOML may not define what
// Tenon writes, in any of TOML's spellings.
func bottlerocketUserData(b bootstrap) (string, error) {
	var buf strings.Builder
	own := b.custom != nil && strings.TrimSpace(*b.custom) != ""
	if own {
		if _, err := toml.Decode(*b.custom, new(map[string]any)); err != nil {
			return "", fmt.Errorf("userData is not valid TOML: %w", err)
		}
		buf.WriteString(strings.TrimRight(*b.custom, "\n") + "\n\n")
	}
	dns := b.dns
	k := b.kubelet
	if k != nil && len(k.ClusterDNS) > 0 {
		dns = k.ClusterDNS[0]
	}
	if dns != "" && net.ParseIP(dns) == nil {
		return "", fmt.Errorf("kubelet clusterDNS %q is not an IP address; give the cluster DNS service's address, such as 10.100.0.10", dns)
	}
	buf.WriteString("[settings.kubernetes]\n")
	writeTOML(&buf, "cluster-name", b.clusterName)
	writeTOML(&buf, "api-server", b.endpoint)
	writeTOML(&buf, "cluster-certificate", b.ca)
	writeTOML(&buf, "cluster-dns-ip", dns)
	if k != nil {
		writeInt(&buf, "max-pods", k.MaxPods)
		writeInt(&buf, "image-gc-high-threshold-percent", k.ImageGCHighThresholdPercent)
		writeInt(&buf, "image-gc-low-threshold-percent", k.ImageGCLowThresholdPercent)
		writeInt(&buf, "eviction-max-pod-grace-period", k.EvictionMaxPodGracePeriod)
		if k.CPUCFSQuota != nil {
			buf.WriteString("cpu-cfs-quota-enforced = " + strconv.FormatBool(*k.CPUCFSQuota) + "\n")
		}
	}
	writeTable(&buf, "settings.kubernetes.node-labels", b.labels)
	writeTaints(&buf, b.taints)
	if k != nil {
		writeTable(&buf, "settings.kubernetes.system-reserved", k.SystemReserved)
		writeTable(&buf, "settings.kubernetes.kube-reserved", k.KubeReserved)
		writeTable(&buf, "settings.kubernetes.eviction-hard", k.EvictionHard)
		writeTable(&buf, "settings.kubernetes.eviction-soft", k.EvictionSoft)
		grace := map[string]string{}
		for sig, d := range k.EvictionSoftGracePeriod {
			grace[sig] = string(d)
		}
		writeTable(&buf, "settings.kubernetes.eviction-soft-grace-period", grace)
	}
	if err := checkBottlerocketTOML(buf.String(), own); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// checkBottlerocketTOML parses the finished document. With the NodeClass's
// TOML valid on its own, a failure means it defines something Tenon writes:
// the [settings.kubernetes] table or one below it, whether as a table, as
// dotted keys (settings.kubernetes.max-pods = 3) or as an inline table.
func checkBottlerocketTOML(doc string, own bool) error {
	_, err := toml.Decode(doc, new(map[string]any))
	switch {
	case err == nil:
		return nil
	case own:
		return fmt.Errorf("userData defines [settings.kubernetes] or a setting in it, which the agent writes (cluster, labels, taints, kubelet settings): %w; move them to the NodeClass's kubelet block, or remove them", err)
	}
	return fmt.Errorf("the Bottlerocket settings Tenon wrote do not parse as TOML: %w; this is a bug, please report it", err)
}

func writeTaints(buf *strings.Builder, taints []v1.Taint) {
	if len(taints) == 0 {
		return
	}
	buf.WriteString("\n[settings.kubernetes.node-taints]\n")
	byKey := map[string][]string{}
	for _, t := range taints {
		byKey[t.Key] = append(byKey[t.Key], t.Value+":"+string(t.Effect))
	}
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		var vals []string
		for _, v := range byKey[key] {
			vals = append(vals, tomlString(v))
		}
		buf.WriteString(tomlString(key) + " = [" + strings.Join(vals, ", ") + "]\n")
	}
}

func writeTOML(buf *strings.Builder, key, value string) {
	buf.WriteString(key + " = " + tomlString(value) + "\n")
}

func writeInt(buf *strings.Builder, key string, v *int32) {
	if v != nil {
		buf.WriteString(key + " = " + strconv.Itoa(int(*v)) + "\n")
	}
}

func writeTable(buf *strings.Builder, name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	buf.WriteString("\n[" + name + "]\n")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		buf.WriteString(tomlString(k) + " = " + tomlString(m[k]) + "\n")
	}
}

// tomlString writes s as a TOML basic string. TOML has the escapes \b \t
// \n \f \r \" \\ and \uXXXX, no others: strconv.Quote's \a, \v and \x1b are
// not TOML and would make Bottlerocket reject the whole document (or, with
// an unescaped newline, read what follows as settings). Every other
// character is written as it is, in UTF-8.
func tomlString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&sb, `\u%04X`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// tenthAddress is the cluster DNS IP Kubernetes conventionally uses: the
// service CIDR's base address plus ten (10.100.0.10 for 10.100.0.0/16).
func tenthAddress(cidr string) string {
	_, ipNet, err := net.ParseCIDR(cidr)
	if err != nil {
		return ""
	}
	ip := ipNet.IP.To4()
	if ip == nil {
		ip = slices.Clone(ipNet.IP)
		ip[len(ip)-1] += 10
		return ip.String()
	}
	ip = slices.Clone(ip)
	ip[3] += 10
	return ip.String()
}
