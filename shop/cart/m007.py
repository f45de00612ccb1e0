import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_7_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-7-0'
    return [line.qty * factor for line in cart.lines]


def step_7_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-7-1'
    return [line.qty * factor for line in cart.lines]


def step_7_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-7-2'
    return [line.qty * factor for line in cart.lines]


def step_7_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-7-3'
    return [line.qty * factor for line in cart.lines]

