#!/usr/bin/python3
"""Unit tests of the CM Scapy layers (offsets of IBA tables 106-113) and of the reference's CM decisions.

  cd scripts && /usr/bin/python3 -m unittest nettwin.naa.test_naa
"""
import unittest

from nettwin.naa.layers import (ATTR, MAD, CmDrep, CmDreq, CmRej, CmRep, CmReq, CmRtu, build_mad, decode_mad,
                                rdma_cm_service_id)
from nettwin.naa.ref import Endpoint, parse_naa_config
from nettwin.rdma.layers import check_icrc

CONFIG = """responder mac 02:00:00:00:00:01 ip 10.0.0.1
qp 0x11 mtu 2048 max_rd_atomic 16 aq 0x10000
cm port 7471 psn 0x222222 initiator_depth 1 comm_id 0x500
"""
CLIENT = {"mac": "02:00:00:00:00:02", "ip": "10.0.0.2", "sport": 50000}
SERVER = {"mac": "02:00:00:00:00:01", "ip": "10.0.0.1"}


class Layers(unittest.TestCase):
    def test_every_cm_message_is_232_bytes(self):
        for cls in (CmReq, CmRep, CmRtu, CmDreq, CmDrep, CmRej):
            self.assertEqual(len(bytes(cls())), 232, cls.name)
        self.assertEqual(len(bytes(MAD())), 24)

    def test_req_offsets_follow_iba_table_106(self):
        b = bytes(CmReq(local_comm_id=0x01020304, service_id=0x1122334455667788, local_qpn=0xabcdef,
                        responder_resources=0x33, initiator_depth=0x44, transport_type=1, starting_psn=0x123456,
                        path_mtu=5))
        self.assertEqual(b[0:4], bytes.fromhex("01020304"))
        self.assertEqual(b[8:16], bytes.fromhex("1122334455667788"))
        self.assertEqual(b[32:36], bytes.fromhex("abcdef33"))
        self.assertEqual(b[39], 0x44)
        self.assertEqual(b[43], 0x02)               # transport service type: bits 2:1
        self.assertEqual(b[44:47], bytes.fromhex("123456"))
        self.assertEqual(b[50] >> 4, 5)             # path MTU: bits 7:4

    def test_rep_and_rej_offsets_follow_iba_tables_108_and_110(self):
        b = bytes(CmRep(local_qpn=0x123456, starting_psn=0x654321, responder_resources=7, initiator_depth=8,
                        target_ack_delay=31, rnr_retry=7, local_ca_guid=0x0102030405060708))
        self.assertEqual(b[12:15], bytes.fromhex("123456"))
        self.assertEqual(b[20:23], bytes.fromhex("654321"))
        self.assertEqual((b[24], b[25], b[26], b[27]), (7, 8, 0xF8, 0xE0))
        self.assertEqual(b[28:36], bytes.fromhex("0102030405060708"))
        self.assertEqual(bytes(CmRej(reason=26))[10:12], b"\x00\x1a")

    def test_rdma_cm_service_id(self):
        self.assertEqual(rdma_cm_service_id(7471), 0x0000000001061D2F)

    def test_built_frames_decode_and_carry_a_good_icrc(self):
        f = build_mad(CLIENT, SERVER, ATTR["RTU"], 0x99, CmRtu(local_comm_id=1, remote_comm_id=2), 5)
        self.assertEqual(len(f), 322)
        self.assertTrue(check_icrc(f))
        bth, mad = decode_mad(f)
        self.assertEqual((bth.dqpn, bth.psn, mad.tid, mad.attr_id), (1, 5, 0x99, ATTR["RTU"]))


class Reference(unittest.TestCase):
    def setUp(self):
        self.ep = Endpoint(*parse_naa_config(CONFIG))

    def req(self, comm=7, port=7471, mtu=3, transport=0):
        return build_mad(CLIENT, SERVER, ATTR["REQ"], 1, CmReq(
            local_comm_id=comm, service_id=rdma_cm_service_id(port), local_qpn=0x77, starting_psn=9,
            responder_resources=4, initiator_depth=3, path_mtu=mtu, transport_type=transport), 0)

    def answer(self, frame):
        out = self.ep.process(frame)
        self.assertEqual(len(out), 1)
        return decode_mad(out[0])[1]

    def test_rep_negotiates_and_the_rtu_creates_the_qp(self):
        rep = self.answer(self.req()).payload
        self.assertEqual((rep.local_comm_id, rep.remote_comm_id, rep.local_qpn, rep.starting_psn),
                         (0x500, 7, 0x11, 0x222222))
        self.assertEqual((rep.responder_resources, rep.initiator_depth), (3, 1))
        self.assertEqual(self.ep.process(build_mad(CLIENT, SERVER, ATTR["RTU"], 1,
                                                   CmRtu(local_comm_id=7, remote_comm_id=0x500), 1)), [])
        q = self.ep.rdma.qps[0x11].conf
        self.assertEqual((q.dest_qp, q.epsn, q.mtu, q.max_rd_atomic), (0x77, 9, 1024, 3))

    def test_reject_reasons_in_order(self):
        self.assertEqual(self.answer(self.req(port=1)).payload.reason, 8)
        self.assertEqual(self.answer(self.req(transport=1)).payload.reason, 9)
        self.assertEqual(self.answer(self.req(mtu=6)).payload.reason, 26)
        self.answer(self.req())
        self.assertEqual(self.answer(self.req(comm=8)).payload.reason, 1)


if __name__ == "__main__":
    unittest.main()
