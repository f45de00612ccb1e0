import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_96_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-96-0'
    return [line.qty * factor for line in cart.lines]


def step_96_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-96-1'
    return [line.qty * factor for line in cart.lines]


def step_96_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-96-2'
    return [line.qty * factor for line in cart.lines]


def step_96_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-96-3'
    return [line.qty * factor for line in cart.lines]

