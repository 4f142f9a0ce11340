"""The manifests' XML: written with ElementTree, so every title is escaped, and serialised the
same way on every build."""

from __future__ import annotations

import xml.etree.ElementTree as ET


def element(tag: str, attrib: dict | None = None, *children, text: str | None = None) -> ET.Element:
    node = ET.Element(tag, attrib or {})
    node.text = text
    node.extend(children)
    return node


def document(root: ET.Element, namespaces: dict[str, str]) -> bytes:
    for prefix, uri in namespaces.items():
        ET.register_namespace(prefix, uri)
    ET.indent(root, space=" ")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n").encode("utf-8")
