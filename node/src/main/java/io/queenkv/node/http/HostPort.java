package io.queenkv.node.http;

import java.util.regex.Pattern;

import io.queenkv.node.kv.Refusal;
import io.queenkv.node.kv.Refusal.Reason;

/**
 * A member address of the admin API: {@code host:port}, the host a DNS name (RFC 1123), an IPv4
 * address or a bracketed IPv6 address, the port 1..65535. Checked here, before Raft sees it: Raft's
 * own check of a bad name fails deep inside the call.
 */
record HostPort(String host, int port) {
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6_TEXT = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    static HostPort parse(String address, String field) {
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? "" : address.substring(0, colon);
        String port = colon < 0 ? "" : address.substring(colon + 1);
        if (!validHost(host) || !port.matches("[1-9]\\d{0,4}") || Integer.parseInt(port) > 65535)
            throw new Refusal(Reason.KV_BAD_REQUEST, "'" + field + "' must be host:port, the host a DNS name, an IPv4 address or"
                    + " an [IPv6] address, the port 1 to 65535");
        return new HostPort(host, Integer.parseInt(port));
    }

    private static boolean validHost(String host) {
        if (host.startsWith("[") && host.endsWith("]")) return validIpv6(host.substring(1, host.length() - 1));
        if (host.isEmpty() || host.length() > 253) return false;
        String[] labels = host.split("\\.", -1);
        boolean numeric = true;
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) return false;
            numeric &= label.chars().allMatch(Character::isDigit);
        }
        // Dotted digits are an IPv4 address or nothing (999.1.1.1 is not a name).
        return !numeric || IPV4.matcher(host).matches();
    }

    /** Full and :: forms of eight 16-bit groups, the last two may be dotted IPv4. */
    private static boolean validIpv6(String text) {
        if (!IPV6_TEXT.matcher(text).matches()) return false;
        int doubleColon = text.indexOf("::");
        if (doubleColon >= 0 && text.indexOf("::", doubleColon + 1) >= 0) return false;
        String[] groups = text.split(":", -1);
        int needed = 8;
        int counted = 0;
        for (int i = 0; i < groups.length; i++) {
            String g = groups[i];
            if (g.isEmpty()) continue; // part of the one "::" (or its ends)
            if (i == groups.length - 1 && g.contains(".")) {
                if (!IPV4.matcher(g).matches()) return false;
                counted += 2;
            } else if (g.length() > 4 || g.contains(".")) {
                return false;
            } else {
                counted++;
            }
        }
        if (doubleColon < 0) return counted == needed && groups.length == needed - (text.contains(".") ? 1 : 0);
        boolean edgesOk = (!text.startsWith(":") || text.startsWith("::")) && (!text.endsWith(":") || text.endsWith("::"));
        return edgesOk && counted < needed;
    }
}
