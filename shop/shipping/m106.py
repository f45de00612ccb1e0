import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_106_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-106-0'
    return [line.qty * factor for line in cart.lines]


def step_106_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-106-1'
    return [line.qty * factor for line in cart.lines]


def step_106_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-106-2'
    return [line.qty * factor for line in cart.lines]


def step_106_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-106-3'
    return [line.qty * factor for line in cart.lines]

