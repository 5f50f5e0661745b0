"""The Kubernetes CEL library functions that CRD rules reach for are there offline, with the
API server's meanings: IPs and CIDRs, URLs, quantities, string and list extensions, RE2 matching.

Each rule below is true on the API server (per the Kubernetes CEL library's documentation);
offline it must neither fail nor be left unchecked.
"""

from __future__ import annotations

import pytest

from engine.core.offline import validation_rules

RULES = [
    "isIP('10.0.0.1') && !isIP('10.0.0.01') && !isIP('::ffff:1.2.3.4') && isIP('fd00::1')",
    "ip('10.0.0.1').family() == 4 && ip('fd00::1').family() == 6",
    "ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('10.0.0.1').isGlobalUnicast()",
    "cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP('11.0.0.1')",
    "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && !cidr('10.0.0.0/8').containsIP('fd00::1')",
    "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')",
    "cidr('10.0.0.0/8').prefixLength() == 8 && string(cidr('10.1.2.3/8').masked()) == '10.0.0.0/8'",
    "string(cidr('10.1.2.3/8').ip()) == '10.1.2.3'",
    "isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0') && !isCIDR('10.0.0.0/33')",
    "isURL('https://example.com:8080/a?b=c') && !isURL('not a url')",
    "url('https://user@example.com:8080/a').getHost() == 'example.com:8080'",
    "url('https://example.com:8080/a').getHostname() == 'example.com'",
    "url('https://example.com:8080/a').getPort() == '8080' && url('https://e.com/').getScheme() == 'https'",
    "url('https://e.com/a/b').getEscapedPath() == '/a/b'",
    "url('https://e.com/?x=1&x=2').getQuery()['x'] == ['1', '2']",
    "isQuantity('1Gi') && !isQuantity('1GG') && quantity('1Gi').isGreaterThan(quantity('1G'))",
    "quantity('500m').compareTo(quantity('0.5')) == 0 && quantity('1k').asInteger() == 1000",
    "!quantity('1.5').isInteger() && quantity('1').add(quantity('500m')).compareTo(quantity('1.5')) == 0",
    "quantity('2').sub(3).sign() == -1",
    "'Hello'.lowerAscii() == 'hello' && 'Hello'.upperAscii() == 'HELLO'",
    "'a,b,c'.split(',') == ['a', 'b', 'c'] && ['a', 'b'].join('-') == 'a-b' && ['a', 'b'].join() == 'ab'",
    "'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3 && [1, 2, 3].indexOf(2) == 1",
    "'hello'.substring(1, 3) == 'el' && 'hello'.charAt(1) == 'e' && ' x '.trim() == 'x'",
    "'hello'.replace('l', 'L') == 'heLLo' && 'hello'.replace('l', 'L', 1) == 'heLlo'",
    "'abc'.matches('^[a-c]+$') && !'abc\\n'.matches('^[a-c]+$')",
    "'abc 123'.find('[0-9]+') == '123' && 'a1b2'.findAll('[0-9]') == ['1', '2']",
    "[1, 2, 3].isSorted() && ![2, 1].isSorted() && [1, 2, 3].sum() == 6 && [1, 5, 3].max() == 5",
]


@pytest.mark.parametrize("rule", RULES)
def test_the_rule_holds_offline(rule: str) -> None:
    assert validation_rules.check({"x-kubernetes-validations": [{"rule": rule}]}, {}) == ([], [])


def test_a_malformed_cidr_fails_the_rule_as_on_the_server() -> None:
    violations, unchecked = validation_rules.check(
        {"x-kubernetes-validations": [{"rule": "cidr(self).prefixLength() > 0"}]}, "10.0.0.0"
    )

    assert [v.rule for v in violations] == ["cidr(self).prefixLength() > 0"]
    assert unchecked == []
