import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_63_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-63-0'
    return [line.qty * factor for line in cart.lines]


def step_63_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-63-1'
    return [line.qty * factor for line in cart.lines]


def step_63_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-63-2'
    return [line.qty * factor for line in cart.lines]


def step_63_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-63-3'
    return [line.qty * factor for line in cart.lines]

