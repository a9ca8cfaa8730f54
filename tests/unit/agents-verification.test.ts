import { describe, expect, it } from 'vitest';
import { blockListOf, rangesOf, signatureAgentUrl } from '../../server/src/services/agents';

describe('signatureAgentUrl', () => {
  it('Given the Signature-Agent forms of the Web Bot Auth drafts, When read, Then the URL comes out; anything else is no URL', () => {
    expect(signatureAgentUrl('"https://signer.example.com"')).toBe('https://signer.example.com/');
    expect(signatureAgentUrl('sig1="https://signer.example.com/dir"')).toBe(
      'https://signer.example.com/dir',
    );
    expect(signatureAgentUrl('https://signer.example.com')).toBe('https://signer.example.com/');
    expect(signatureAgentUrl('"javascript:alert(1)"')).toBeNull();
    expect(signatureAgentUrl('"not a url"')).toBeNull();
    expect(signatureAgentUrl(undefined)).toBeNull();
  });
});

describe('rangesOf and blockListOf', () => {
  it('Given an operator range list, When read, Then IPv4 and IPv6 prefixes match their addresses and nothing else', () => {
    const ranges = rangesOf({
      creationTime: '2026-11-30T00:00:00Z',
      prefixes: [{ ipv4Prefix: '20.15.240.64/28' }, { ipv6Prefix: '2001:db8::/32' }, { other: 1 }],
    });
    expect(ranges).toEqual(['20.15.240.64/28', '2001:db8::/32']);
    const list = blockListOf([...ranges, 'garbage', '1.2.3.4/33', '::1/129']);
    expect(list.check('20.15.240.70', 'ipv4')).toBe(true);
    expect(list.check('20.15.240.80', 'ipv4')).toBe(false);
    expect(list.check('2001:db8::1', 'ipv6')).toBe(true);
    expect(list.check('2001:db9::1', 'ipv6')).toBe(false);
    expect(list.check('1.2.3.4', 'ipv4')).toBe(false);
  });

  it('Given a plain list of prefixes or something else, When read, Then strings are taken and anything else gives no ranges', () => {
    expect(rangesOf(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
    expect(rangesOf({ nope: true })).toEqual([]);
    expect(rangesOf(null)).toEqual([]);
  });
});
