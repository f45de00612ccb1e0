import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_19_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-19-0'
    return [line.qty * factor for line in cart.lines]


def step_19_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-19-1'
    return [line.qty * factor for line in cart.lines]


def step_19_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-19-2'
    return [line.qty * factor for line in cart.lines]


def step_19_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-19-3'
    return [line.qty * factor for line in cart.lines]

