import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_110_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-110-0'
    return [line.qty * factor for line in cart.lines]


def step_110_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-110-1'
    return [line.qty * factor for line in cart.lines]


def step_110_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-110-2'
    return [line.qty * factor for line in cart.lines]


def step_110_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-110-3'
    return [line.qty * factor for line in cart.lines]

